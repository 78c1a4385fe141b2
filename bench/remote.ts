// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import { bareCall } from "./lib/bare-call.ts";
import { BIN, type EmulatorChild, launcherFlags, ROOT, reap, spawnEmulator } from "./lib/emulator-child.ts";
import { bigPackage, rawLogin, rawUpload, smallPackage } from "./lib/package-zip.ts";
import { type Piece, type PieceTimes, piecesReport, type Variant, variantsOf } from "./lib/pieces.ts";
import { loadAverage, machine, memoryOf } from "./lib/proc.ts";
import { type Exchange, type RemoteProxy, startProxy } from "./lib/remote-proxy.ts";
import { benchEnvironmentFile, everythingPackage } from "./lib/repo.ts";
import { reportOfChild } from "./lib/report-child.ts";
import { finishFair, LoadGate, median, orderOf, pairedRatios, roundsOf } from "./lib/rounds.ts";
import type { Verdict } from "./lib/verdict.ts";

/*
 * egp against remote instances (DESIGN §5): the emulators sit behind proxies of this bench's own
 * (lib/remote-proxy.ts) that add a latency to every exchange (half each way), can cap each link's
 * bandwidth and can add handshake round trips to each new connection. Four measurements:
 * - plan: `egp plan` (warm manifest cache) of a repository that manages every user and parameter
 *   of the target (as `egp export` writes them) and a Package of the source's applications, paired
 *   round by round with the floor: a bare reader (a child process, undici, no validation) making
 *   the same reads with the same per-instance concurrency, both instances at once, each tree as
 *   soon as the names are known. At concurrency 4 and 16, then at 16 with extra handshakes;
 * - a fleet: `egp status` of FLEET environments that promote from one source, paired with
 *   `egp status` of one of them;
 * - an apply: the requests of `egp apply` of a promotion of the Package onto an instance without
 *   its applications, over the requests of the plan of the same (measured once: it changes the
 *   target);
 * - a promotion: egp's client (a child, `--promote`, both sessions open before the clock starts) promotes a package over capped links
 *   whose downloads have no `Content-Length`, paired with curl's download and upload of the same
 *   package through the same proxies; the ratio is over the slower of curl's two transfers.
 * Ratios are medians of the per-round ratios (lib/rounds.ts), each round alternating which side
 * goes first. Above a one-minute load of 1.5 before the run the verdict is NO VERDICT; the last
 * lines are the figures, then the load.
 *
 *   bash scripts/node24 node bench/remote.ts [--rounds N] [--users N] [--apps N] [--parameters N]
 *     [--fleet N] [--mb N] [--latency MS] [--rate MB/s] [--handshakes N] [--source] [--pieces]
 *
 * Then the speed machinery (DESIGN §5, lib/pieces.ts): in each round, the warm plan at concurrency
 * 16 with every piece on and with each piece off in turn (its plain variant passed in through the
 * library: lib/plan-child.ts); each piece's figure is the median of its per-round ratios off / all on.
 * `--pieces` runs only this part (and the setup it needs).
 */

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
};

const BARE = argv[0] === "--bare";
const ROUNDS = roundsOf(option("rounds", Number.NaN));
const USERS = option("users", 10_000);
const APPS = option("apps", 20);
const PARAMETERS = option("parameters", 100);
const FLEET = option("fleet", 10);
const PACKAGE_MB = option("mb", 200);
const LATENCY_MS = option("latency", 80);
const RATE = option("rate", 20) * 1_000_000;
const HANDSHAKES = option("handshakes", 2);
const FROM_SOURCE = argv.includes("--source");
const PASSWORD = "Password1!";
const GROUPS = { Everyone: 1, Administrators: 2 };
const DEADLINE_MS = 30 * 60_000;
const PIECES_ONLY = argv.includes("--pieces");
/** The speed machinery's pieces (lib/pieces.ts), each on a plan's path. */
const PLAN_PIECES: readonly Piece[] = ["parse", "validate", "cache"];
const PLAN_CHILD = join(ROOT, "bench", "lib", "plan-child.ts");
/** The machine's load, taken first, before the bench's own processes add to it. */
const gate = new LoadGate();
// An apply's verify reads each installed tree twice, an interval apart (stable reads): one read
// more than a single match, so its requests may be 2.5× the plan's, not 2×.
const TARGETS = { c4: 1.1, c16: 1.15, handshakes: 1.2, fleet: 1.5, apply: 2.5, promotion: 1.05 };

const appName = (i: number) => `Scale Application ${String(i + 1).padStart(4, "0")}`;

// Prints the child's own peak RSS on exit (pipes are synchronous on Linux, so the line gets out).
const PEAK_RSS =
  "data:text/javascript,process.on('exit',()=>{process.stderr.write('peak-rss-kb '+process.resourceUsage().maxRSS+'\\n')})";

interface Measured {
  ms: number;
  peakMb: number;
  stdout: string;
  stderr: string;
  code: number | null;
}

function run(args: string[], env: Record<string, string> = {}, flags: string[] = []): Promise<Measured> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", PEAK_RSS, ...flags, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  reap(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.once("close", (code) => {
      const ms = performance.now() - started;
      const peakMb = Number(/peak-rss-kb (\d+)\n/.exec(stderr)?.[1] ?? 0) / 1024;
      resolve({ ms, peakMb, stdout, stderr: stderr.replace(/peak-rss-kb \d+\n/, ""), code });
    });
  });
}

// ---- the floor, run as a child: `node bench/remote.ts --bare <target> <source> <concurrency> <apps>`

type Envelope = { RequestedObject: Record<string, unknown> };

/** A per-instance bound on requests in flight, as egp's client has one per environment. */
function instance(url: string, concurrency: number, count: () => void) {
  const dispatcher = new Agent({ connections: concurrency, pipelining: 1 });
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  let token: string | null = null;
  const call = async (path: string, method = "POST", body?: unknown): Promise<unknown> => {
    if (inFlight >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    else inFlight += 1;
    try {
      count();
      return await bareCall(dispatcher, url, token, path, method, body);
    } finally {
      const next = waiting.shift();
      if (next) next();
      else inFlight -= 1;
    }
  };
  const list = async (path: string, method = "POST") =>
    ((await call(path, method)) as Envelope[]).map((e) => e.RequestedObject);
  return {
    async login() {
      const body = { InstanceName: "Default", Username: "sysadmin", UserDomain: "", Password: PASSWORD };
      const answer = (await call("/core/security/login", "POST", body)) as Envelope;
      token = String(answer.RequestedObject.SessionToken);
    },
    list,
    call,
    /** The catalogue, then the trees of the named applications. */
    async trees(names: Set<string>) {
      const [modules, levels] = await Promise.all([
        list("/core/system/application"),
        list("/core/system/level"),
      ]);
      const wanted = new Set(modules.filter((m) => names.has(String(m.Name))).map((m) => m.Id));
      await Promise.all(
        levels
          .filter((level) => wanted.has(level.ModuleId))
          .map(async (level) => {
            const [, , rules] = await Promise.all([
              list(`/core/system/fielddefinition/level/${level.Id}`),
              call(`/core/system/levellayout/level/${level.Id}`),
              list(`/core/system/eventrule/level/${level.Id}`),
            ]);
            await Promise.all(rules.map((rule) => list(`/core/system/eventaction/eventrule/${rule.Id}`)));
          }),
      );
    },
    async logout() {
      await call("/core/security/logout", "POST", { Value: token });
      await dispatcher.close();
    },
  };
}

async function bareReads(targetUrl: string, sourceUrl: string, concurrency: number, apps: number) {
  let requests = 0;
  const count = () => {
    requests += 1;
  };
  const started = performance.now();
  const target = instance(targetUrl, concurrency, count);
  const source = instance(sourceUrl, concurrency, count);
  const names = new Set(Array.from({ length: apps }, (_, i) => appName(i)));
  await Promise.all([
    target
      .login()
      .then(() =>
        Promise.all([
          target.list("/core/system/securityparameter"),
          target.list("/core/system/user"),
          target.list("/core/system/usercontact", "GET"),
          ...Object.values(GROUPS).map((id) => target.list(`/core/system/user/group/${id}`)),
          target.trees(names),
          target.call("/core/system/applicationinfo/version"),
        ]),
      ),
    source
      .login()
      .then(() => Promise.all([source.trees(names), source.call("/core/system/applicationinfo/version")])),
  ]);
  await Promise.all([target.logout(), source.logout()]);
  process.stdout.write(`${JSON.stringify({ requests, httpMs: performance.now() - started })}\n`);
}

// ---- the benchmark

/** No rate cap: the floor has none; under a cap only fewer requests help (docs/performance.md). */
const environmentFile = (url: string, concurrency: number, extra: string[] = []) =>
  benchEnvironmentFile(url, { concurrency, requestsPerSecond: 0 }, extra);

const packageManifest = () => everythingPackage(Array.from({ length: APPS }, (_, i) => appName(i)));

const FEW_USERS = [1, 2, 3]
  .map((i) => {
    const n = String(i).padStart(6, "0");
    return `kind: User\nuserName: user${n}\nfirstName: First${n}\nlastName: Last${n}\ngroups: [Everyone]\n`;
  })
  .join("---\n");

const egpEnv = () => ({ EGP_BENCH_PASSWORD: PASSWORD, ...(FROM_SOURCE ? {} : { EGP_USE_DIST: "1" }) });

interface EgpRun extends Measured {
  /** Requests per environment, logouts included (egp's debug line per environment). */
  requests: Record<string, number>;
}

async function egp(args: string[], okCodes = [0]): Promise<EgpRun> {
  const result = await run([BIN, ...args, "--log-level", "debug", "--json"], egpEnv(), launcherFlags());
  if (!okCodes.includes(result.code ?? -1))
    throw new Error(`egp ${args[0]} failed (${result.code}): ${result.stderr.slice(-2000)}`);
  const requests: Record<string, number> = {};
  for (const line of result.stderr.split("\n")) {
    if (!line.includes('"msg":"requests made"')) continue;
    const parsed = JSON.parse(line) as { env: string; requests: number };
    requests[parsed.env] = (requests[parsed.env] ?? 0) + parsed.requests;
  }
  return { ...result, requests };
}

const total = (requests: Record<string, number>) => Object.values(requests).reduce((a, b) => a + b, 0);

async function bare(targetUrl: string, sourceUrl: string, concurrency: number) {
  const args = [
    new URL(import.meta.url).pathname,
    "--bare",
    targetUrl,
    sourceUrl,
    String(concurrency),
    String(APPS),
  ];
  const result = await run(args);
  if (result.code !== 0) throw new Error(`bare reads failed: ${result.stderr}`);
  return { ...result, ...(JSON.parse(result.stdout) as { requests: number; httpMs: number }) };
}

/** dist/ as `npm run build` makes it: compiled, then bundled. */
function buildDist(): void {
  for (const args of [
    [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
    ["scripts/bundle.ts"],
  ]) {
    const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`build failed: ${result.stdout}${result.stderr}`);
  }
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ratioOf = (ours: number[], theirs: number[]) => median(pairedRatios(ours, theirs));

interface Scenario {
  label: string;
  dir: string;
  concurrency: number;
  handshakes: number;
  egp: number[];
  floor: number[];
  requests: { egp: number; floor: number };
  peakMb: number;
}

const figures: string[] = [];

const PHASES: Array<[string, RegExp]> = [
  ["login", /\/security\/login$/],
  ["version", /applicationinfo\/version$/],
  ["catalogue", /\/system\/(application|level)$/],
  ["trees", /\/(fielddefinition|levellayout|eventrule|eventaction)\//],
  ["users", /\/system\/(user|usercontact)(\/|$)/],
  ["groups", /\/system\/group$/],
  ["parameters", /\/securityparameter$/],
  ["logout", /\/security\/logout$/],
];

/**
 * One run's timeline, per instance and phase: from the first exchange's arrival at the proxy to
 * the last answer's departure, in ms from the process start, with the count of exchanges.
 */
function traceLine(side: string, exchanges: readonly Exchange[], started: number, ms: number): string {
  const at = (time: number) => Math.round(time - started);
  const parts: string[] = [];
  for (const proxy of ["target", "source"]) {
    const own = exchanges.filter((e) => e.proxy === proxy);
    const phases = PHASES.flatMap(([name, pattern]) => {
      const matched = own.filter((e) => pattern.test(e.path));
      if (matched.length === 0) return [];
      const first = Math.min(...matched.map((e) => e.start));
      const last = Math.max(...matched.map((e) => e.end));
      return [`${name} ${at(first)}–${at(last)} (${matched.length})`];
    });
    const other = own.filter((e) => !PHASES.some(([, pattern]) => pattern.test(e.path))).length;
    parts.push(`${proxy}: ${phases.join(", ")}${other > 0 ? `, other ${other}` : ""}`);
  }
  return `trace, ${side}, concurrency 16 (ms from the start): ${parts.join("; ")}; exit ${Math.round(ms)}`;
}

async function main(): Promise<Verdict> {
  const work = mkdtempSync(join(tmpdir(), "egp-bench-remote-"));
  const out = (text: string) => process.stdout.write(`${text}\n`);
  const emulators: EmulatorChild[] = [];
  const proxies: RemoteProxy[] = [];
  const dist = !FROM_SOURCE;
  try {
    if (dist) buildDist();
    out(machine());
    out(
      `remote: ${USERS} users, ${PARAMETERS} + 3 parameters, a Package of ${APPS} applications, ${LATENCY_MS} ms per exchange, ${RATE / 1e6} MB/s links for the promotion, ${ROUNDS} rounds`,
    );
    const spawned = await Promise.all([
      spawnEmulator({ seed: `scale:users=${USERS},apps=${APPS},parameters=${PARAMETERS}`, dist }),
      spawnEmulator({ seed: `scale:apps=${APPS}`, dist }),
      spawnEmulator({ seed: "empty", dist }),
    ]);
    emulators.push(...spawned);
    const [targetEmu, sourceEmu, freshEmu] = spawned as [EmulatorChild, EmulatorChild, EmulatorChild];
    const latency = { latencyMs: LATENCY_MS };
    const [target, source, fresh] = await Promise.all(
      [targetEmu, sourceEmu, freshEmu].map((e) => startProxy(e.url, latency)),
    );
    proxies.push(target as RemoteProxy, source as RemoteProxy, fresh as RemoteProxy);
    const [t, s, f] = [target as RemoteProxy, source as RemoteProxy, fresh as RemoteProxy];

    // The plan's repositories: one per concurrency, the same manifests (written by egp export).
    const repo = (name: string, concurrency: number) => {
      const dir = join(work, name);
      mkdirSync(join(dir, "manifests"), { recursive: true });
      mkdirSync(join(dir, "environments"), { recursive: true });
      writeFileSync(
        join(dir, "environments", "scale.yaml"),
        environmentFile(t.url, concurrency, ["packagesFrom: source"]),
      );
      writeFileSync(join(dir, "environments", "source.yaml"), environmentFile(s.url, concurrency));
      writeFileSync(join(dir, "manifests", "package.yaml"), packageManifest());
      return dir;
    };
    const c4 = repo("c4", 4);
    const exported = await egp([
      "export",
      "--env",
      "scale",
      "--dir",
      c4,
      "--out",
      join(c4, "manifests", "live"),
    ]);
    out(`setup: egp export of the target in ${fmt(exported.ms)}`);
    const c16 = repo("c16", 16);
    cpSync(join(c4, "manifests", "live"), join(c16, "manifests", "live"), { recursive: true });

    const scenarios: Scenario[] = [
      { label: "concurrency 4", dir: c4, concurrency: 4, handshakes: 0 },
      { label: "concurrency 16", dir: c16, concurrency: 16, handshakes: 0 },
      {
        label: `concurrency 16, ${HANDSHAKES} handshakes`,
        dir: c16,
        concurrency: 16,
        handshakes: HANDSHAKES,
      },
    ].map((s) => ({ ...s, egp: [], floor: [], requests: { egp: 0, floor: 0 }, peakMb: 0 }));
    const plan = (dir: string) => egp(["plan", "--env", "scale", "--dir", dir, "--format", "json"]);
    // Warm: the manifest cache written, both emulators' JIT warmed.
    for (const dir of [c4, c16]) await plan(dir);

    let verdict: Verdict = { pass: true };
    if (!PIECES_ONLY) {
      // The fleet: FLEET environments promoting from one source, a few users and the Package.
      const fleet = join(work, "fleet");
      mkdirSync(join(fleet, "environments"), { recursive: true });
      mkdirSync(join(fleet, "manifests"), { recursive: true });
      writeFileSync(join(fleet, "environments", "dev.yaml"), environmentFile(s.url, 16));
      const members = Array.from({ length: FLEET }, (_, i) => `prod${String(i + 1).padStart(2, "0")}`);
      for (const name of members)
        writeFileSync(
          join(fleet, "environments", `${name}.yaml`),
          environmentFile(t.url, 16, ["packagesFrom: dev"]),
        );
      writeFileSync(join(fleet, "manifests", "package.yaml"), packageManifest());
      writeFileSync(join(fleet, "manifests", "users.yaml"), FEW_USERS);
      const status = (envs: string[]) => egp(["status", "--dir", fleet, "--env", ...envs], [0, 2]);
      await status(members.slice(0, 1));
      const fleetTimes = { one: [] as number[], all: [] as number[] };

      for (let round = 0; round < ROUNDS; round++) {
        const cells: string[] = [];
        for (const scenario of scenarios) {
          for (const proxy of [t, s])
            proxy.configure({ latencyMs: LATENCY_MS, handshakes: scenario.handshakes });
          const [first, second] = orderOf(round, "egp", "floor");
          for (const side of [first, second]) {
            if (side === "egp") {
              const result = await plan(scenario.dir);
              scenario.egp.push(result.ms);
              scenario.requests.egp = total(result.requests);
              scenario.peakMb = Math.max(scenario.peakMb, result.peakMb);
            } else {
              const result = await bare(t.url, s.url, scenario.concurrency);
              scenario.floor.push(result.ms);
              scenario.requests.floor = result.requests;
            }
          }
          cells.push(
            `${scenario.label} ${fmt(scenario.egp.at(-1) ?? 0)} / ${fmt(scenario.floor.at(-1) ?? 0)}`,
          );
        }
        for (const proxy of [t, s]) proxy.configure(latency);
        const [first, second] = orderOf(round, "all", "one");
        for (const side of [first, second]) {
          const result = await status(side === "all" ? members : members.slice(0, 1));
          fleetTimes[side === "all" ? "all" : "one"].push(result.ms);
        }
        cells.push(
          `status of ${FLEET} ${fmt(fleetTimes.all.at(-1) ?? 0)} / of 1 ${fmt(fleetTimes.one.at(-1) ?? 0)}`,
        );
        out(`round ${round + 1}: ${cells.join("; ")}; load ${loadAverage().toFixed(2)}`);
      }

      // The trace of one plan and one floor at concurrency 16: when each phase's exchanges ran.
      for (const proxy of [t, s]) proxy.configure(latency);
      for (const side of ["egp", "floor"] as const) {
        const exchanges: Exchange[] = [];
        t.trace(exchanges, "target");
        s.trace(exchanges, "source");
        const started = performance.now();
        const ms = side === "egp" ? (await plan(c16)).ms : (await bare(t.url, s.url, 16)).ms;
        t.trace(undefined);
        s.trace(undefined);
        out(traceLine(side, exchanges, started, ms));
      }

      // The apply: once, since it changes the instance it promotes to.
      const apply = join(work, "apply");
      mkdirSync(join(apply, "environments"), { recursive: true });
      mkdirSync(join(apply, "manifests"), { recursive: true });
      writeFileSync(
        join(apply, "environments", "fresh.yaml"),
        environmentFile(f.url, 16, ["packagesFrom: source"]),
      );
      writeFileSync(join(apply, "environments", "source.yaml"), environmentFile(s.url, 16));
      writeFileSync(join(apply, "manifests", "package.yaml"), packageManifest());
      const applyPlan = await egp(["plan", "--env", "fresh", "--dir", apply, "--format", "json"]);
      const applied = await egp(["apply", "--env", "fresh", "--dir", apply, "--yes"]);
      const applyRatio = total(applied.requests) / total(applyPlan.requests);
      out(
        `apply of a promotion of ${APPS} applications: ${total(applied.requests)} requests (${JSON.stringify(applied.requests)}), its plan ${total(applyPlan.requests)} (${JSON.stringify(applyPlan.requests)}), ${fmt(applied.ms)}`,
      );

      const promotion = await promotionRounds(work, dist, out);
      out(
        `promotion peak RSS: ${promotion.peakMb.toFixed(0)} MB; the plans': ${Math.max(...scenarios.map((s) => s.peakMb)).toFixed(0)} MB`,
      );

      out("");
      for (const scenario of scenarios)
        out(
          `plan, ${scenario.label}: egp ${fmt(median(scenario.egp))} (${scenario.requests.egp} requests, peak RSS ${scenario.peakMb.toFixed(0)} MB), floor ${fmt(median(scenario.floor))} (${scenario.requests.floor} requests)`,
        );
      out(`status: of ${FLEET} ${fmt(median(fleetTimes.all))}, of 1 ${fmt(median(fleetTimes.one))}`);
      out(
        `targets: plan ≤ ${TARGETS.c4}× the floor at concurrency 4, ≤ ${TARGETS.c16}× at 16, ≤ ${TARGETS.handshakes}× with handshakes; status of ${FLEET} ≤ ${TARGETS.fleet}× one; apply requests ≤ ${TARGETS.apply}× the plan's; promotion without a length ≤ ${TARGETS.promotion}× the slower transfer; peak RSS < 150 MB (promotion), < 250 MB (plan)`,
      );
      const [p4, p16, hs] = scenarios.map((s) => ratioOf(s.egp, s.floor)) as [number, number, number];
      const planPeak = Math.max(...scenarios.map((s) => s.peakMb));
      figures.push(
        `remote plan / floor, concurrency 4, ${LATENCY_MS} ms: ${p4.toFixed(2)}`,
        `remote plan / floor, concurrency 16, ${LATENCY_MS} ms: ${p16.toFixed(2)}`,
        `remote plan / floor, ${HANDSHAKES} handshakes: ${hs.toFixed(2)}`,
        `status of ${FLEET} / status of 1: ${ratioOf(fleetTimes.all, fleetTimes.one).toFixed(2)}`,
        `apply requests / plan requests: ${applyRatio.toFixed(2)}`,
        `promotion / slower transfer, no length: ${promotion.ratio.toFixed(2)}`,
        `peak RSS MB: ${Math.max(planPeak, promotion.peakMb).toFixed(0)}`,
      );
      const missed = [
        p4 > TARGETS.c4 && "plan at concurrency 4",
        p16 > TARGETS.c16 && "plan at concurrency 16",
        hs > TARGETS.handshakes && "plan with handshakes",
        ratioOf(fleetTimes.all, fleetTimes.one) > TARGETS.fleet && "status of the fleet",
        applyRatio > TARGETS.apply && "apply requests",
        promotion.ratio > TARGETS.promotion && "promotion",
        promotion.peakMb >= 150 && "promotion peak RSS",
        planPeak >= 250 && "plan peak RSS",
      ].filter((miss): miss is string => typeof miss === "string");
      verdict =
        missed.length === 0 ? { pass: true } : { pass: false, reason: `missed: ${missed.join(", ")}` };
    }
    await pieceRounds(c16, [t, s], dist, out);
    return verdict;
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    await Promise.all(emulators.map((e) => e.stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

interface Promotion {
  source: RemoteProxy;
  target: RemoteProxy;
  /** The package's id on the source. */
  id: number;
}

/** A package of PACKAGE_MB on demo-dev, behind a capped proxy, and demo-prod behind another. */
async function withPromotion<T>(
  work: string,
  dist: boolean,
  body: (promotion: Promotion) => Promise<T>,
): Promise<T> {
  const [from, to] = await Promise.all([
    spawnEmulator({ seed: "demo-dev", dist }),
    spawnEmulator({ seed: "demo-prod", dist }),
  ]);
  const link = { latencyMs: LATENCY_MS, bytesPerSecond: RATE, noLength: true };
  const [source, target] = await Promise.all([startProxy(from.url, link), startProxy(to.url, link)]);
  try {
    const token = await rawLogin(from.url, PASSWORD);
    const small = join(work, "small.zip");
    const big = join(work, "big.zip");
    await smallPackage(from.url, token, small);
    await bigPackage(small, big, PACKAGE_MB);
    const id = await rawUpload(from.url, token, big);
    rmSync(big);
    return await body({ source, target, id });
  } finally {
    await Promise.all([source.close(), target.close()]);
    await Promise.all([from.stop(), to.stop()]);
  }
}

/** egp's promotion (the `--promote` child) and curl's two transfers, through capped proxies. */
async function promotionRounds(work: string, dist: boolean, out: (text: string) => void) {
  return withPromotion(work, dist, async ({ source, target, id }) => {
    const egpMs: number[] = [];
    const slower: number[] = [];
    let peakMb = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const [first, second] = orderOf(round, "egp", "curl");
      for (const side of [first, second]) {
        const file = join(work, `${side}-${round}.zip`);
        if (side === "egp") {
          const result = await promoteWithEgp(source.url, target.url, id, file, dist);
          egpMs.push(result.ms);
          peakMb = Math.max(peakMb, result.hwm);
        } else slower.push(await promoteWithCurl(source.url, target.url, id, file, work));
        rmSync(file, { force: true });
      }
      out(
        `promotion round ${round + 1}: egp ${fmt(egpMs.at(-1) ?? 0)}, curl's slower transfer ${fmt(slower.at(-1) ?? 0)}`,
      );
    }
    return { ratio: ratioOf(egpMs, slower), peakMb };
  });
}

/** A plan of `dir` through the library (lib/plan-child.ts), with `variant`'s piece off. */
async function planOf(dir: string, variant: Variant, dist: boolean) {
  const env = { EGP_BENCH_PASSWORD: PASSWORD, ...(dist ? { EGP_BENCH_DIST: "1" } : {}) };
  const result = await run([PLAN_CHILD, dir, "scale", variant], env, launcherFlags());
  if (result.code !== 0)
    throw new Error(`plan (${variant}) failed (${result.code}): ${result.stderr.slice(-2000)}`);
  return { ...result, ...(JSON.parse(result.stdout) as { summary: unknown; requests: number }) };
}

/**
 * The speed machinery's pieces (lib/pieces.ts): each round, the warm plan at concurrency 16 with
 * every piece on and with each of the plan's pieces off, in a turning order. Every plan must give the same
 * changes with the same requests: a piece only makes a plan faster.
 */
async function pieceRounds(
  dir: string,
  proxies: readonly RemoteProxy[],
  dist: boolean,
  out: (text: string) => void,
): Promise<void> {
  for (const proxy of proxies) proxy.configure({ latencyMs: LATENCY_MS, handshakes: 0 });
  // Also writes the cache that the warm plans read.
  const reference = await planOf(dir, "all", dist);
  const plans = new Map<Variant, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    const cells: string[] = [];
    for (const variant of variantsOf(round, PLAN_PIECES)) {
      const result = await planOf(dir, variant, dist);
      if (
        JSON.stringify(result.summary) !== JSON.stringify(reference.summary) ||
        result.requests !== reference.requests
      )
        throw new Error(
          `the plan with ${variant} off differs: ${JSON.stringify(result.summary)}, ${result.requests} requests`,
        );
      plans.set(variant, [...(plans.get(variant) ?? []), result.ms]);
      cells.push(`plan ${variant === "all" ? "all on" : `${variant} off`} ${fmt(result.ms)}`);
    }
    out(`pieces round ${round + 1}: ${cells.join(", ")}; load ${loadAverage().toFixed(2)}`);
  }
  const on = plans.get("all") ?? [];
  const measured: PieceTimes[] = [
    ...PLAN_PIECES.map((piece) => ({
      piece,
      measure: "plan, concurrency 16",
      off: plans.get(piece) ?? [],
      on,
    })),
  ];
  figures.push(...piecesReport("remote", gate.before, measured));
}

/**
 * The promotion as egp's apply makes it, run as a child (`--promote`) so that its memory is its own:
 * the download teed into the upload where it can be, and otherwise the upload from the file after.
 */
async function promoteChild(sourceUrl: string, targetUrl: string, id: number, file: string): Promise<void> {
  const entry = process.env.EGP_BENCH_DIST ? join(ROOT, "dist/index.js") : join(ROOT, "src/index.ts");
  const { createClient } = (await import(entry)) as typeof import("../src/index.ts");
  // The promotion's transfer is the client's own, not the library's API (no gate runs around it).
  const promoteEntry = process.env.EGP_BENCH_DIST
    ? join(ROOT, "dist/client/promote.js")
    : join(ROOT, "src/client/promote.ts");
  const { promotePackage } = (await import(promoteEntry)) as typeof import("../src/client/promote.ts");
  const options = (url: string) => ({
    url,
    instance: "Default",
    username: "sysadmin",
    password: PASSWORD,
    limits: { requestsPerSecond: 0 },
  });
  const source = createClient(options(sourceUrl));
  const target = createClient(options(targetUrl));
  // Logged in before the clock starts, as the apply's clients are (its plan logged them in) and as
  // curl's tokens are taken before its transfers are timed.
  await Promise.all([source.security.login(), target.security.login()]);
  const started = performance.now();
  const result = await promotePackage(source, target, id, file, { fileName: "promoted.zip" });
  // As the apply does: a copy not uploaded alongside the download is uploaded from the file.
  if (result.uploaded === undefined) await target.packages.upload(file, { fileName: "promoted.zip" });
  const promotionMs = performance.now() - started;
  await Promise.all([source.close(), target.close()]);
  const report = { promotionMs, pipelined: result.pipelined, hwm: memoryOf("self").hwm };
  process.stdout.write(JSON.stringify(report));
}

async function promoteWithEgp(sourceUrl: string, targetUrl: string, id: number, file: string, dist: boolean) {
  const args = ["--promote", sourceUrl, targetUrl, String(id), file];
  const script = new URL(import.meta.url).pathname;
  const { report } = await reportOfChild<{ promotionMs: number; hwm: number }>(
    "egp promotion",
    script,
    args,
    {
      password: PASSWORD,
      dist,
    },
  );
  return { ms: report.promotionMs, hwm: report.hwm };
}

/** curl's download, then its upload; the slower of the two, in ms. */
async function promoteWithCurl(sourceUrl: string, targetUrl: string, id: number, file: string, work: string) {
  const header = (name: string, token: string) => {
    const path = join(work, `${name}.headers`);
    writeFileSync(path, `Authorization: Platform session-id="${token}"\n`);
    return path;
  };
  const [sourceToken, targetToken] = await Promise.all([
    rawLogin(sourceUrl, PASSWORD),
    rawLogin(targetUrl, PASSWORD),
  ]);
  // Not spawnSync: the proxies run in this process's event loop.
  const timed = (args: string[]) =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const child = spawn("curl", ["-sS", "--fail-with-body", ...args], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.once("close", (code) => {
        if (code !== 0) reject(new Error(`curl exited ${code}: ${stderr.trim()}`));
        else resolve(performance.now() - started);
      });
    });
  const download = await timed([
    "-H",
    `@${header("source", sourceToken)}`,
    "-o",
    file,
    `${sourceUrl}/api/core/package/download/${id}`,
  ]);
  const upload = await timed([
    "-H",
    `@${header("target", targetToken)}`,
    "-H",
    "Accept: application/json",
    "-F",
    `file=@${file};type=application/zip`,
    `${targetUrl}/api/core/package/upload`,
  ]);
  return Math.max(download, upload);
}

if (BARE) {
  await bareReads(argv[1] ?? "", argv[2] ?? "", Number(argv[3]), Number(argv[4]));
} else if (argv[0] === "--promote") {
  await promoteChild(argv[1] ?? "", argv[2] ?? "", Number(argv[3]), argv[4] ?? "");
} else {
  await finishFair(DEADLINE_MS, gate, main, () => figures);
}
