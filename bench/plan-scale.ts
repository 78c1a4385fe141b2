// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import { bareCall } from "./lib/bare-call.ts";
import { launcherFlags } from "./lib/emulator-child.ts";
import { FIRST_REQUEST_IMPORT, FirstRequests } from "./lib/first-request.ts";
import { type Piece, type PieceTimes, piecesReport, type Variant, variantsOf } from "./lib/pieces.ts";
import { cpuSecondsOf, loadAverage, machine } from "./lib/proc.ts";
import { benchEnvironmentFile, everythingPackage } from "./lib/repo.ts";
import { finishFair, LOAD_LIMIT, LoadGate, median, pairedRatios, roundsOf } from "./lib/rounds.ts";
import type { Verdict } from "./lib/verdict.ts";

/*
 * `egp plan` at scale (DESIGN §5): 10,000 users, 100 extra security parameters and 200
 * applications on the target (an emulator child), the same 200 applications on the package source
 * (another). Two repositories, each with one package naming all 200 applications, so that the plan
 * reads every tree on both sides:
 * - "a few managed": five users and a parameter, as a repository that manages part of an instance;
 * - "everything managed": every user and parameter, as `egp export` writes them (10,105 documents),
 *   planned cold (no manifest cache: parse, validate, write the cache) and warm (with it).
 *
 * Next to them, a minimal script does only the bare HTTP reads that plan needs (same routes, same
 * concurrency, undici, no validation, no planning); the floor is that script plus a YAML parse
 * (js-yaml's loadAll) of the "everything managed" manifests. Each runs in a child process of its own,
 * so that its peak RSS and CPU are its own. At least 6 rounds run the five in turn; each ratio is
 * the median of the per-round ratios (bench/lib/rounds.ts). Above a one-minute load of 1.5 before the
 * run it prints NO VERDICT instead of PASS or FAIL. The last lines are the verdict's figures. A run
 * at the default size lasts a few minutes (bounded: it stops past DEADLINE_MS).
 * Then the speed machinery (DESIGN §5, lib/pieces.ts): in each of at least 6 rounds, the plan of
 * "everything managed", cold then warm, with every piece on and with each piece off in turn (its
 * plain variant passed in through the library: lib/plan-child.ts), each piece's figure the median of
 * its per-round ratios off / all on. `--pieces` runs only this part.
 * Beside the ratios it prints each run's start-up, from the process's spawn to its first request
 * reaching an emulator (each emulator reports when each new connection's first request arrives),
 * egp's beside the bare reads': a fixed cost that weighs more the faster the machine reads, so
 * that a ratio that moves between machines can be told apart from a plan that got slower. Printed,
 * not judged.
 *
 *   bash scripts/node24 node bench/plan-scale.ts [users] [apps] [parameters] [--rounds N] [--source] [--pieces]
 *
 * `node bench/plan-scale.ts 200 3 5` checks that it runs (the figures of so small a run mean nothing).
 */

const BARE = process.argv[2] === "--bare";
// The bare-reads child is told the number of applications; the benchmark reads its own arguments.
const ARGS = process.argv.slice(2).filter((_arg, i, all) => all[i - 1] !== "--rounds");
const numbers = (BARE ? ["0", process.argv[5] ?? ""] : ARGS).filter(isNumber).map(Number);
const [USERS = 10_000, APPS = 200, PARAMETERS = 100] = numbers;
const CONCURRENCY = 8;
const RATIO_LIMIT = { few: 1.3, warm: 1.4, coldFloor: 1.5 } as const;
const ROUNDS = roundsOf(Number(process.argv[process.argv.indexOf("--rounds") + 1] ?? Number.NaN));
const RSS_LIMIT_MB = 250;
const DEADLINE_MS = 900_000;
const PIECES_ONLY = process.argv.includes("--pieces");
/** The speed machinery's pieces (lib/pieces.ts), each on a plan's path. */
const PLAN_PIECES: readonly Piece[] = ["parse", "validate", "cache"];
const PASSWORD = "Bench#Scale2026";
const GROUPS = { Everyone: 1, Administrators: 2 };
/**
 * Users whose manifest manages `roles` in "everything managed" (the first ones, `user000001`…):
 * each costs one read of the user's roles, beside one read of the instance's roles. "A few managed"
 * manages the roles of its five users.
 */
const ROLE_USERS = 100;
const FEW_ROLE_USERS = 5;
const roleUserName = (i: number) => `user${String(i).padStart(6, "0")}`;

const root = new URL("..", import.meta.url).pathname;
const bin = join(root, "bin", "egp.js");
const planChild = join(root, "bench", "lib", "plan-child.ts");

function isNumber(text: string): boolean {
  return /^\d+$/.test(text);
}

// Prints the child's own peak RSS and CPU time on exit (pipes are synchronous on Linux, so the line gets out).
const PEAK_RSS =
  "data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('peak-rss-kb '+u.maxRSS+' cpu-us '+(u.userCPUTime+u.systemCPUTime)+'\\n')})";

interface Measured {
  /** Epoch ms at the spawn, the clock the emulators' arrival times use. */
  spawnedAt: number;
  ms: number;
  peakMb: number;
  /** User + system CPU seconds of the process itself. */
  cpuS: number;
  /** CPU seconds the emulators spent while it ran. */
  emulatorCpuS: number;
  stdout: string;
  stderr: string;
  code: number | null;
}

const children = new Set<ChildProcess>();

/** egp runs as it ships: the launcher's Node flags and the compiled dist/ (`--source`: the sources). */
const FROM_SOURCE = process.argv.includes("--source");
const egpRuntime = (): { flags: string[]; env: Record<string, string> } => ({
  flags: launcherFlags(),
  env: FROM_SOURCE ? {} : { EGP_USE_DIST: "1" },
});

function run(args: string[], env: Record<string, string> = {}, flags: string[] = []): Promise<Measured> {
  const spawnedAt = Date.now();
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", PEAK_RSS, ...flags, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.once("close", (code) => {
      children.delete(child);
      const ms = performance.now() - started;
      const usage = /peak-rss-kb (\d+) cpu-us (\d+)\n/.exec(stderr);
      const peakMb = Number(usage?.[1] ?? 0) / 1024;
      const cpuS = Number(usage?.[2] ?? 0) / 1e6;
      const rest = stderr.replace(/peak-rss-kb \d+ cpu-us \d+\n/, "");
      resolve({ spawnedAt, ms, peakMb, cpuS, emulatorCpuS: 0, stdout, stderr: rest, code });
    });
  });
}

/** Both emulators' first-request times: each run's start-up. */
const arrivals = new FirstRequests();

/** From a run's spawn to its first request at either emulator, ms (NaN if none was seen). */
const startUpMs = (run: Measured) => arrivals.startUpMs(run.spawnedAt, run.ms);

function startEmulator(seed: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      FIRST_REQUEST_IMPORT,
      bin,
      "emulator",
      "--port",
      "0",
      "--seed",
      seed,
      "--admin-password",
      PASSWORD,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.add(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += arrivals.feed(chunk.toString(), child);
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.once("exit", (code) => reject(new Error(`emulator (${seed}) exited early (${code})`)));
  });
}

/**
 * No rate cap: the bare reads have none, and a cap of N per second alone would make 2,141 requests
 * last 2141/N seconds whatever egp does.
 */
const environmentFile = (url: string, extra: string[] = []) =>
  benchEnvironmentFile(url, { concurrency: CONCURRENCY, requestsPerSecond: 0 }, extra);

const packageManifest = () =>
  everythingPackage(
    Array.from({ length: APPS }, (_, i) => `Scale Application ${String(i + 1).padStart(4, "0")}`),
  );

// ---- the bare reads, run as a child: `node bench/plan-scale.ts --bare <target> <source>`

type Envelope = { RequestedObject: Record<string, unknown> };

/**
 * The floor's parse: every YAML file under `dir`, read with js-yaml's `loadAll` and the core schema,
 * the fastest complete reading of YAML among egp's dependencies (no positions, no validation).
 */
async function parseAllYaml(dir: string): Promise<number> {
  const { CORE_SCHEMA, loadAll } = await import("js-yaml");
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".yaml"));
  let documents = 0;
  for (const file of files)
    documents += loadAll(readFileSync(join(dir, file), "utf8"), null, { schema: CORE_SCHEMA }).length;
  return documents;
}

/** `manifests`: also parse that folder's YAML (the floor), while the reads are on the wire. */
async function bareReads(targetUrl: string, sourceUrl: string, manifests?: string): Promise<void> {
  let requests = 0;
  const dispatcher = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  const slot = async () => {
    if (inFlight >= CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight += 1;
  };
  const release = () => {
    inFlight -= 1;
    waiting.shift()?.();
  };
  const call = async (url: string, token: string | null, path: string, method = "POST", body?: unknown) => {
    await slot();
    try {
      requests += 1;
      return await bareCall(dispatcher, url, token, path, method, body);
    } finally {
      release();
    }
  };
  const login = async (url: string) => {
    const body = { InstanceName: "Default", Username: "sysadmin", UserDomain: "", Password: PASSWORD };
    const result = (await call(url, null, "/core/security/login", "POST", body)) as Envelope;
    return String(result.RequestedObject.SessionToken);
  };
  const list = async (url: string, token: string, path: string, method = "POST") =>
    ((await call(url, token, path, method)) as Envelope[]).map((e) => e.RequestedObject);

  const trees = async (url: string, token: string, names: Set<string>) => {
    const [modules, levels] = await Promise.all([
      list(url, token, "/core/system/application"),
      list(url, token, "/core/system/level"),
    ]);
    const wanted = new Set(modules.filter((m) => names.has(String(m.Name))).map((m) => m.Id));
    await Promise.all(
      levels
        .filter((level) => wanted.has(level.ModuleId))
        .map(async (level) => {
          const [, , rules] = await Promise.all([
            list(url, token, `/core/system/fielddefinition/level/${level.Id}`),
            call(url, token, `/core/system/levellayout/level/${level.Id}`),
            list(url, token, `/core/system/eventrule/level/${level.Id}`),
          ]);
          await Promise.all(
            rules.map((rule) => list(url, token, `/core/system/eventaction/eventrule/${rule.Id}`)),
          );
        }),
    );
  };

  const started = performance.now();
  const names = new Set(
    Array.from({ length: APPS }, (_, i) => `Scale Application ${String(i + 1).padStart(4, "0")}`),
  );
  const [target, source] = await Promise.all([login(targetUrl), login(sourceUrl)]);
  // The roles of the role-managed users, once the users are listed: the list gives their ids.
  const roles = async (users: Array<Record<string, unknown>>) => {
    const wanted = new Set(Array.from({ length: ROLE_USERS }, (_, i) => roleUserName(i + 1)));
    const ids = users.filter((u) => wanted.has(String(u.UserName))).map((u) => u.Id);
    await Promise.all([
      list(targetUrl, target, "/core/system/role"),
      ...ids.map((id) => list(targetUrl, target, `/core/system/role/user/${id}`)),
    ]);
  };
  const reads = Promise.all([
    list(targetUrl, target, "/core/system/securityparameter"),
    list(targetUrl, target, "/core/system/user").then(roles),
    list(targetUrl, target, "/core/system/usercontact", "GET"),
    ...Object.values(GROUPS).map((id) => list(targetUrl, target, `/core/system/user/group/${id}`)),
    trees(sourceUrl, source, names).then(() => trees(targetUrl, target, names)),
    // A promotion's plan compares the two instances' releases.
    call(targetUrl, target, "/core/system/applicationinfo/version"),
    call(sourceUrl, source, "/core/system/applicationinfo/version"),
  ]);
  // The floor parses once the reads are on the wire, as egp loads its manifests once its first
  // reads are: the instances answer meanwhile.
  const documents = manifests ? await parseAllYaml(manifests) : 0;
  await reads;
  await Promise.all([
    call(targetUrl, target, "/core/security/logout", "POST", { Value: target }),
    call(sourceUrl, source, "/core/security/logout", "POST", { Value: source }),
  ]);
  await dispatcher.close();
  process.stdout.write(`${JSON.stringify({ requests, documents, httpMs: performance.now() - started })}\n`);
}

// ---- the benchmark

/** A few users and a parameter, as a repository that manages only part of a large instance would. */
function fewManifests(): string {
  const users = [1, 2, 3, 4, 5].map((i) => {
    const n = String(i).padStart(6, "0");
    return [
      "kind: User",
      `userName: user${n}`,
      `firstName: First${n}`,
      `lastName: Last${n}`,
      "title: Analyst",
      "groups: [Everyone]",
      "roles: [General User]",
      `contacts: [{ type: email, subType: business, value: user${n}@example.com, default: true }]`,
    ].join("\n");
  });
  const parameter = ["kind: SecurityParameter", "name: General User Parameter", "minPasswordLength: 12"];
  return [parameter.join("\n"), ...users, ""].join("\n---\n");
}

/**
 * Gives the first `count` exported users `roles: [General User]`, the role they hold on the scale
 * seed (export writes no roles), so that their roles are read back and compared: the count made.
 */
function manageRoles(folder: string, count: number): number {
  const wanted = new Set(Array.from({ length: count }, (_, i) => roleUserName(i + 1)));
  let made = 0;
  for (const file of readdirSync(folder).filter((f) => f.endsWith(".yaml"))) {
    const path = join(folder, file);
    const text = readFileSync(path, "utf8").replace(/^userName: (\S+)$/gm, (line, name: string) => {
      if (!wanted.has(name)) return line;
      made += 1;
      return `${line}\nroles: [General User]`;
    });
    writeFileSync(path, text);
  }
  if (made !== count) throw new Error(`setup: ${made} of ${count} role-managed users found in the export`);
  return made;
}

function repository(work: string, name: string, targetUrl: string, sourceUrl: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, "environments"), { recursive: true });
  mkdirSync(join(dir, "manifests"), { recursive: true });
  writeFileSync(
    join(dir, "environments", "scale.yaml"),
    environmentFile(targetUrl, ["packagesFrom: source"]),
  );
  writeFileSync(join(dir, "environments", "source.yaml"), environmentFile(sourceUrl));
  writeFileSync(join(dir, "manifests", "package.yaml"), packageManifest());
  return dir;
}

interface PlanRun extends Measured {
  requests: number;
  summary: Record<string, number>;
}

async function plan(dir: string, env: Record<string, string>): Promise<PlanRun> {
  const args = [
    bin,
    "plan",
    "--env",
    "scale",
    "--dir",
    dir,
    "--format",
    "json",
    "--log-level",
    "debug",
    "--json",
  ];
  const runtime = egpRuntime();
  const result = await run(args, { ...env, ...runtime.env }, runtime.flags);
  if (result.code !== 0) throw new Error(`plan failed (${result.code}): ${result.stderr.slice(-2000)}`);
  // egp logs, at debug level, the requests each environment's client made (logouts included);
  // tracing every exchange instead would cost the plan about half a second.
  const requests = result.stderr
    .split("\n")
    .filter((line) => line.includes('"msg":"requests made"'))
    .reduce((sum, line) => sum + Number((JSON.parse(line) as { requests: number }).requests), 0);
  return { ...result, requests, summary: JSON.parse(result.stdout).summary };
}

/** What the bare-reads child prints. */
type BareOutput = { requests: number; documents: number; httpMs: number };
type Bare = Measured & BareOutput;

/** The bare reads; with `manifests`, the floor: the same reads and a parse of that folder's YAML. */
async function bare(targetUrl: string, sourceUrl: string, manifests?: string): Promise<Bare> {
  const args = [new URL(import.meta.url).pathname, "--bare", targetUrl, sourceUrl, String(APPS)];
  const result = await run(manifests ? [...args, manifests] : args);
  if (result.code !== 0) throw new Error(`bare reads failed: ${result.stderr}`);
  return { ...result, ...(JSON.parse(result.stdout) as BareOutput) };
}

/** The median of each figure over the rounds, and the highest peak RSS. */
function medianOf<T extends Measured>(runs: T[]): T {
  return {
    ...(runs[0] as T),
    ms: median(runs.map((run) => run.ms)),
    cpuS: median(runs.map((run) => run.cpuS)),
    emulatorCpuS: median(runs.map((run) => run.emulatorCpuS)),
    peakMb: Math.max(...runs.map((run) => run.peakMb)),
  };
}

function fmt(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

function row(cells: string[]): string {
  return `${cells[0]?.padEnd(30)}${cells
    .slice(1)
    .map((cell) => cell.padStart(11))
    .join("")}\n`;
}

function buildDist(): void {
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
    cwd: root,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`build failed: ${result.stdout}${result.stderr}`);
}

/** Runs `measure` and adds the CPU seconds the two emulators spent meanwhile. */
async function withEmulatorCpu<T extends Measured>(pids: number[], measure: () => Promise<T>): Promise<T> {
  const cpu = () => pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
  const before = cpu();
  const result = await measure();
  return { ...result, emulatorCpuS: cpu() - before };
}

interface Round {
  reads: Bare;
  floor: Bare;
  few: PlanRun;
  cold: PlanRun;
  warm: PlanRun;
}

/** The machine's load before the bench started its own processes. */
const gate = new LoadGate();

/** The verdict's figures, printed last (after the verdict, before the load line). */
const figures: string[] = [];

const pairedRatio = (ours: readonly number[], theirs: readonly number[]) =>
  median(pairedRatios(ours, theirs));

interface Setup {
  few: string;
  all: string;
  emulators: number[];
  env: Record<string, string>;
  target: string;
  source: string;
}

/** The guards: the bare reads, the floor and the three plans, round by round, and their targets. */
async function guardRounds(setup: Setup, out: (text: string) => void): Promise<Verdict> {
  const { few, all, emulators, env, target, source } = setup;
  // Warm both emulators up once, so that neither measured run pays for their JIT; and the few's cache.
  await bare(target, source);
  await plan(few, env);

  // Each round runs the five in turn, so that the ratios are paired round by round. Cold: the
  // manifest cache removed first (the plan parses and validates, and writes the cache); warm:
  // right after, with the cache the cold plan wrote. The floor is the bare reads plus a YAML parse
  // of the "everything managed" manifests, the least a cold plan of them does on one thread.
  const rounds: Round[] = [];
  const cacheOf = join(all, ".egp", "cache");
  for (let round = 0; round < ROUNDS; round++) {
    const reads = await withEmulatorCpu(emulators, () => bare(target, source));
    const floor = await withEmulatorCpu(emulators, () => bare(target, source, join(all, "manifests")));
    const fewRun = await withEmulatorCpu(emulators, () => plan(few, env));
    rmSync(cacheOf, { recursive: true, force: true });
    const cold = await withEmulatorCpu(emulators, () => plan(all, env));
    const warm = await withEmulatorCpu(emulators, () => plan(all, env));
    rounds.push({ reads, floor, few: fewRun, cold, warm });
    out(
      `round ${round + 1}: bare ${fmt(reads.ms)}, floor ${fmt(floor.ms)}, few ${fmt(fewRun.ms)}, cold ${fmt(cold.ms)}, warm ${fmt(warm.ms)}; load ${loadAverage().toFixed(2)}\n`,
    );
  }
  const of = <K extends keyof Round>(key: K) => rounds.map((r) => r[key]);
  const times = <K extends keyof Round>(key: K) => of(key).map((r) => r.ms);
  const reads = { ...medianOf(of("reads")), httpMs: median(of("reads").map((r) => r.httpMs)) };
  const floor = medianOf(of("floor"));
  const ratios = {
    floor: pairedRatio(times("floor"), times("reads")),
    few: pairedRatio(times("few"), times("reads")),
    warm: pairedRatio(times("warm"), times("reads")),
    cold: pairedRatio(times("cold"), times("reads")),
    coldFloor: pairedRatio(times("cold"), times("floor")),
  };
  const plans = { few: medianOf(of("few")), cold: medianOf(of("cold")), warm: medianOf(of("warm")) };
  const startUps = <K extends keyof Round>(key: K) => of(key).map(startUpMs);
  const startUp = <K extends keyof Round>(key: K) => median(startUps(key).filter(Number.isFinite));

  out("\n");
  out(
    row([
      "median of the rounds",
      "wall time",
      "start-up",
      "egp CPU",
      "emul. CPU",
      "peak RSS",
      "requests",
      "ratio",
    ]),
  );
  const line = (label: string, m: Measured & { requests: number }, startUpOf: number, ratio: string) =>
    out(
      row([
        label,
        fmt(m.ms),
        `${startUpOf.toFixed(0)} ms`,
        `${m.cpuS.toFixed(2)} s`,
        `${m.emulatorCpuS.toFixed(2)} s`,
        `${m.peakMb.toFixed(0)} MB`,
        String(m.requests),
        ratio,
      ]),
    );
  line("bare reads", reads, startUp("reads"), "");
  line("floor: reads + YAML parse", floor, startUp("floor"), ratios.floor.toFixed(2));
  line("plan, a few managed", plans.few, startUp("few"), ratios.few.toFixed(2));
  line("plan, everything, cold", plans.cold, startUp("cold"), `${ratios.cold.toFixed(2)}`);
  line("plan, everything, warm", plans.warm, startUp("warm"), ratios.warm.toFixed(2));
  const peak = Math.max(plans.few.peakMb, plans.cold.peakMb, plans.warm.peakMb);
  // "A few managed" reads the roles of its five users, not of the hundred: that many fewer requests.
  const fewRequests = reads.requests - ROLE_USERS + FEW_ROLE_USERS;
  const requestsMatch =
    plans.few.requests === fewRequests &&
    [plans.cold, plans.warm].every((p) => p.requests === reads.requests);
  const pass =
    ratios.warm <= RATIO_LIMIT.warm &&
    ratios.coldFloor <= RATIO_LIMIT.coldFloor &&
    ratios.few <= RATIO_LIMIT.few &&
    peak < RSS_LIMIT_MB &&
    requestsMatch;
  out("\n");
  out(
    `ratios are medians of the per-round ratios (plan / bare reads; cold / floor: ${ratios.coldFloor.toFixed(2)}); CPU: user + system seconds of egp's process, and of the two emulators meanwhile\n`,
  );
  const cpu = <K extends keyof Round>(key: K) => of(key).map((r) => r.cpuS);
  out(
    `egp's own CPU seconds, medians of the per-round ratios (steadier than wall time on a busy machine): warm / bare reads ${pairedRatio(cpu("warm"), cpu("reads")).toFixed(2)}, cold / floor ${pairedRatio(cpu("cold"), cpu("floor")).toFixed(2)}, a few managed / bare reads ${pairedRatio(cpu("few"), cpu("reads")).toFixed(2)}\n`,
  );
  out(`bare reads, HTTP only (without the process start): ${fmt(reads.httpMs)}\n`);
  const byRound = <K extends keyof Round>(key: K) =>
    startUps(key)
      .map((ms) => ms.toFixed(0))
      .join(", ");
  const afterStartUp = pairedRatio(
    of("warm").map((r) => r.ms - startUpMs(r)),
    of("reads").map((r) => r.ms - startUpMs(r)),
  );
  out(
    `start-up (printed, not judged): from the spawn to the first request at an emulator, by round: warm plan ${byRound("warm")} ms, bare reads ${byRound("reads")} ms; the rest of the run, warm plan / bare reads: ${afterStartUp.toFixed(2)}\n`,
  );
  out(
    `floor: the bare reads and js-yaml's loadAll of the ${floor.documents} documents "everything managed" plans (no validation, no comparison), one thread\n`,
  );
  out(`peak RSS, highest plan / bare reads' own: ${(peak / reads.peakMb).toFixed(2)}\n`);
  out(
    `plan summaries: few ${JSON.stringify(plans.few.summary)}, all ${JSON.stringify(plans.warm.summary)}\n`,
  );
  out(
    `targets: everything managed warm ≤ ${RATIO_LIMIT.warm}× the bare reads, cold ≤ ${RATIO_LIMIT.coldFloor}× the floor; a few managed ≤ ${RATIO_LIMIT.few}×; plan peak RSS < ${RSS_LIMIT_MB} MB; the bare reads' request count (a few managed: ${ROLE_USERS - FEW_ROLE_USERS} fewer, the role reads of users it does not manage); judged at a load ≤ ${LOAD_LIMIT} before the run\n`,
  );
  out(`load after the rounds: ${loadAverage().toFixed(2)}\n`);
  figures.push(
    `ratio everything managed, warm: ${ratios.warm.toFixed(2)}`,
    `ratio everything managed, cold / floor: ${ratios.coldFloor.toFixed(2)}`,
    `ratio a few managed: ${ratios.few.toFixed(2)}`,
    `peak RSS MB: ${peak.toFixed(0)}`,
    `start-up ms, warm plan / bare reads, not judged: ${startUp("warm").toFixed(0)} / ${startUp("reads").toFixed(0)}`,
  );
  return pass ? { pass } : { pass, reason: "a target missed (above)" };
}

/** A plan of `dir` through the library (lib/plan-child.ts), with `variant`'s piece off. */
async function planOf(
  dir: string,
  variant: Variant,
): Promise<Measured & { summary: unknown; requests: number }> {
  const runtime = egpRuntime();
  const env = { EGP_BENCH_PASSWORD: PASSWORD, ...(FROM_SOURCE ? {} : { EGP_BENCH_DIST: "1" }) };
  const result = await run([planChild, dir, "scale", variant], env, runtime.flags);
  if (result.code !== 0)
    throw new Error(`plan (${variant}) failed (${result.code}): ${result.stderr.slice(-2000)}`);
  return { ...result, ...(JSON.parse(result.stdout) as { summary: unknown; requests: number }) };
}

/**
 * The speed machinery's pieces: each round plans "everything managed" cold (no cache) then warm
 * with every piece on and with each piece off, in a turning order. Every variant must plan the same
 * changes with the same requests: a piece only makes a plan faster.
 */
async function pieceRounds(all: string, out: (text: string) => void): Promise<void> {
  const cacheOf = join(all, ".egp", "cache");
  const times = new Map<Variant, { cold: number[]; warm: number[] }>();
  const reference = await planOf(all, "all");
  for (let round = 0; round < ROUNDS; round++) {
    const cells: string[] = [];
    for (const variant of variantsOf(round, PLAN_PIECES)) {
      rmSync(cacheOf, { recursive: true, force: true });
      const cold = await planOf(all, variant);
      const warm = await planOf(all, variant);
      for (const run of [cold, warm])
        if (
          JSON.stringify(run.summary) !== JSON.stringify(reference.summary) ||
          run.requests !== reference.requests
        )
          throw new Error(
            `the plan with ${variant} off differs: ${JSON.stringify(run.summary)}, ${run.requests} requests`,
          );
      const own = times.get(variant) ?? { cold: [], warm: [] };
      own.cold.push(cold.ms);
      own.warm.push(warm.ms);
      times.set(variant, own);
      cells.push(`${variant === "all" ? "all on" : `${variant} off`} ${fmt(cold.ms)} / ${fmt(warm.ms)}`);
    }
    out(`pieces round ${round + 1} (cold / warm): ${cells.join(", ")}; load ${loadAverage().toFixed(2)}\n`);
  }
  const on = times.get("all") as { cold: number[]; warm: number[] };
  const measured: PieceTimes[] = PLAN_PIECES.flatMap((piece) => {
    const off = times.get(piece) as { cold: number[]; warm: number[] };
    return [
      { piece, measure: "plan, cold", off: off.cold, on: on.cold },
      { piece, measure: "plan, warm", off: off.warm, on: on.warm },
    ];
  });
  figures.push(...piecesReport("plan-scale", gate.before, measured));
}

async function main(): Promise<Verdict> {
  const work = mkdtempSync(join(tmpdir(), "egp-bench-plan-"));
  const out = (text: string) => process.stdout.write(text);
  try {
    if (!FROM_SOURCE) buildDist();
    out(`${machine()}\n`);
    out(
      `plan-scale: ${USERS} users, ${APPS} applications, ${PARAMETERS} + 3 security parameters, ${ROUNDS} rounds\n`,
    );
    const [target, source] = await Promise.all([
      startEmulator(`scale:users=${USERS},apps=${APPS},parameters=${PARAMETERS}`),
      startEmulator(`scale:apps=${APPS}`),
    ]);
    const emulators = [target.child.pid ?? 0, source.child.pid ?? 0];
    const env = { EGP_BENCH_PASSWORD: PASSWORD };

    // Two repositories, each with one package naming all the applications: one manages a few
    // users and a parameter, the other every user and parameter (written by egp export: setup).
    const few = repository(work, "few", target.url, source.url);
    writeFileSync(join(few, "manifests", "few.yaml"), fewManifests());
    const all = repository(work, "all", target.url, source.url);
    const exported = await run(
      [bin, "export", "--env", "scale", "--dir", all, "--out", join(all, "manifests", "live")],
      { ...env, ...egpRuntime().env },
      egpRuntime().flags,
    );
    if (exported.code !== 0) throw new Error(`export failed: ${exported.stderr}`);
    out(
      `setup: egp export wrote ${USERS + 1} users and ${PARAMETERS + 3} parameters in ${fmt(exported.ms)}\n`,
    );
    const managed = manageRoles(join(all, "manifests", "live"), ROLE_USERS);
    out(`role-managed users: everything managed ${managed}, a few managed ${FEW_ROLE_USERS}\n`);
    const guards = PIECES_ONLY
      ? { pass: true }
      : await guardRounds({ few, all, emulators, env, target: target.url, source: source.url }, out);
    await pieceRounds(all, out);
    return guards;
  } finally {
    for (const child of children) child.kill("SIGTERM");
    rmSync(work, { recursive: true, force: true });
  }
}

if (BARE) {
  await bareReads(process.argv[3] ?? "", process.argv[4] ?? "", process.argv[6]);
} else {
  // Also when finishFair exits past the deadline: no emulator outlives the bench.
  process.on("exit", () => {
    for (const child of children) child.kill("SIGKILL");
  });
  await finishFair(DEADLINE_MS, gate, main, () => figures);
}
