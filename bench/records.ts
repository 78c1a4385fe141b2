// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { BIN, launcherFlags, reap, spawnEmulator } from "./lib/emulator-child.ts";
import { rawLogin } from "./lib/package-zip.ts";
import { loadAverage, machine, RssSampler } from "./lib/proc.ts";
import { type Exchange, startProxy } from "./lib/remote-proxy.ts";
import { benchEnvironmentFile } from "./lib/repo.ts";
import { finishFair, LoadGate, median, orderOf, pairedRatios, roundsOf } from "./lib/rounds.ts";
import type { Verdict } from "./lib/verdict.ts";

/*
 * Record documents at scale (docs/performance.md, "Records"): an emulator child seeded with
 * `scale:records=N` (50,000 by default), and a repository whose Record document manages M of its
 * records (1,000), every value as the instance has it.
 * - plan: `egp plan` of that document, paired round by round with a bare reader (a child process,
 *   undici, no validation) making the reads a plan of it needs: the login, the three metadata reads
 *   (applications, the application's levels, the level's fields) and the Content API's pages of the
 *   level, one after another as egp reads them (each page's length says whether there is another).
 *   Behind the latency proxy of bench/remote.ts (target: egp ≤ 1.1× the bare reader) and on
 *   loopback (guard ≤ 1.5×). Also egp's request count through the proxy beside that minimum, and
 *   the plan's peak RSS (target < 400 MB).
 * - apply: `egp apply` of a document changing C records (half updated, half created) against a
 *   second emulator child that answers some requests 503 and resets some connections, before or
 *   after handling them, at the environment's concurrency; then the level is read back: it must
 *   hold N + C/2 records, each key once, every update in place, and a plan must show no changes.
 * Ratios are medians of the per-round ratios (lib/rounds.ts). Above a one-minute load of 1.5 before
 * the run the verdict is NO VERDICT; the last lines are the figures, then the load.
 *
 *   bash scripts/node24 node bench/records.ts [--records N] [--managed M] [--changed C]
 *     [--rounds R] [--latency MS] [--concurrency K] [--source]
 *
 * `--records 3000 --managed 100 --changed 60` checks that it runs (its figures mean nothing).
 */

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
};

const BARE = argv[0] === "--bare";
const RECORDS = option("records", 50_000);
const MANAGED = Math.min(option("managed", 1_000), RECORDS);
const CHANGED = option("changed", 1_000);
const ROUNDS = roundsOf(option("rounds", Number.NaN));
const LATENCY_MS = option("latency", 20);
const CONCURRENCY = option("concurrency", 8);
const FROM_SOURCE = argv.includes("--source");
const RATIO_TARGET = 1.1;
const LOOPBACK_GUARD = 1.5;
const RSS_LIMIT_MB = 400;
const DEADLINE_MS = 1_800_000;
const PASSWORD = "Password1!";
const PAGE = 1000;
/** Random faults of the apply's instance: some 503s, some connections reset; the login is spared. */
const FAULTS = "seed=11,rate=0.05,statuses=503,retryAfter=0,reset=0.02,exempt=/security/login";

const APPLICATION = "Scale Records";
const SELECT = ["Record_Key", "Category", "Title"];
const key = (n: number) => `REC-${String(n).padStart(6, "0")}`;
const CATEGORIES = ["Hardware", "Software", "Service", "Facility", "Other"];
const category = (n: number) => CATEGORIES[n % CATEGORIES.length] as string;

/** The bare reader: login, the three metadata reads, then the level's pages in turn. */
async function bareReads(url: string): Promise<void> {
  const dispatcher = new Agent({ connections: CONCURRENCY });
  const token = await rawLogin(url, PASSWORD);
  const headers = { authorization: `Platform session-id="${token}"`, accept: "application/json" };
  const metadata = async (path: string) => {
    const response = await request(`${url}/platformapi${path}`, {
      method: "POST",
      headers: { ...headers, "x-http-method-override": "GET", "content-type": "application/json" },
      dispatcher,
    });
    return (await response.body.json()) as Array<{
      RequestedObject: { Id: number; Name: string; Alias: string };
    }>;
  };
  const app = (await metadata("/core/system/application")).find(
    (a) => a.RequestedObject.Name === APPLICATION,
  );
  const [level] = await metadata(`/core/system/level/module/${app?.RequestedObject.Id}`);
  await metadata(`/core/system/fielddefinition/level/${level?.RequestedObject.Id}`);
  const set = level?.RequestedObject.Alias as string;
  const select = [`${set}_Id`, ...SELECT].join(",");
  for (let skip = 0; ; skip += PAGE) {
    const response = await request(`${url}/contentapi/${set}?$select=${select}&$top=${PAGE}&$skip=${skip}`, {
      headers,
      dispatcher,
    });
    const page = (await response.body.json()) as { value: unknown[] };
    if (page.value.length < PAGE) break;
  }
  await dispatcher.close();
}

if (BARE) {
  await bareReads(argv[1] as string);
  process.exit(0);
}

/** A Record document of Scale Records: `entries` as [n, title], the category as seeded. */
function recordDocument(entries: ReadonlyArray<readonly [number, string]>): string {
  const lines = ["kind: Record", `application: ${APPLICATION}`, "key: [Record Key]", "records:"];
  for (const [n, title] of entries)
    lines.push(`  - { Record Key: ${key(n)}, Category: ${category(n)}, Title: "${title}" }`);
  return `${lines.join("\n")}\n`;
}

/** M records spread over the level, as seeded: a plan of them changes nothing. */
function managedEntries(): Array<[number, string]> {
  const step = Math.max(1, Math.floor(RECORDS / MANAGED));
  return Array.from({ length: MANAGED }, (_, i) => {
    const n = 1 + i * step;
    return [n, `Scale record ${n}`];
  });
}

/** C changed records: the first half updated (a new title), the second half created (keys past N). */
function changedEntries(): Array<[number, string]> {
  const updates = Math.floor(CHANGED / 2);
  const step = Math.max(1, Math.floor(RECORDS / Math.max(1, updates)));
  const out: Array<[number, string]> = [];
  for (let i = 0; i < updates; i++) out.push([1 + i * step, `Renamed record ${1 + i * step}`]);
  for (let i = 1; i <= CHANGED - updates; i++) out.push([RECORDS + i, `New record ${RECORDS + i}`]);
  return out;
}

function repository(url: string, document: string): string {
  const dir = mkdtempSync(join(tmpdir(), "egp-bench-records-"));
  mkdirSync(join(dir, "environments"));
  mkdirSync(join(dir, "manifests"));
  writeFileSync(
    join(dir, "environments", "bench.yaml"),
    benchEnvironmentFile(url, { concurrency: CONCURRENCY, requestsPerSecond: 0 }),
  );
  writeFileSync(join(dir, "manifests", "records.yaml"), document);
  return dir;
}

interface Run {
  ms: number;
  code: number;
  peakMb: number;
  stdout: string;
}

function run(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "", ...env },
  });
  reap(child);
  const sampler = new RssSampler();
  sampler.start(child.pid as number);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      const peak = sampler.stop();
      if (code !== 0 && code !== 2) process.stderr.write(stderr);
      resolve({ ms: performance.now() - started, code: code ?? 1, peakMb: peak, stdout });
    });
  });
}

const egpEnv = () => ({ EGP_BENCH_PASSWORD: PASSWORD, ...(FROM_SOURCE ? {} : { EGP_USE_DIST: "1" }) });
const egp = (dir: string, args: readonly string[]) =>
  run([...launcherFlags(), BIN, ...args, "--env", "bench", "--dir", dir], egpEnv());
const bare = (url: string) => run([join(import.meta.dirname, "records.ts"), "--bare", url]);

const figures: string[] = [];
const gate = new LoadGate();

/** The plan against the bare reader, round by round, at one address; the ratio of the medians' rounds. */
async function planRounds(url: string, dir: string, label: string) {
  const planMs: number[] = [];
  const bareMs: number[] = [];
  let peakMb = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    for (const side of orderOf(round, "egp", "bare")) {
      if (side === "egp") {
        const planned = await egp(dir, ["plan", "--detailed-exitcode"]);
        if (planned.code !== 0)
          throw new Error(`${label}: the plan of the managed records is not "No changes"`);
        planMs.push(planned.ms);
        peakMb = Math.max(peakMb, planned.peakMb);
      } else {
        const read = await bare(url);
        if (read.code !== 0) throw new Error(`${label}: the bare reader failed`);
        bareMs.push(read.ms);
      }
    }
  }
  const ratio = median(pairedRatios(planMs, bareMs));
  figures.push(
    `plan ${label}: egp ${Math.round(median(planMs))} ms, bare reader ${Math.round(median(bareMs))} ms, ratio ${ratio.toFixed(2)} (median of ${ROUNDS} rounds; load ${loadAverage().toFixed(2)})`,
  );
  return { ratio, peakMb };
}

/**
 * egp's requests for one plan, through the proxy: the Content API's pages and the metadata reads,
 * beside their minimum, and the session's own (login, the version read, logout) counted apart.
 */
async function planRequests(dir: string, trace: (into: Exchange[] | undefined) => void) {
  const exchanges: Exchange[] = [];
  trace(exchanges);
  await egp(dir, ["plan"]);
  trace(undefined);
  if (process.env.EGP_BENCH_TRACE) for (const e of exchanges) console.log(`  ${e.method} ${e.path}`);
  const session = exchanges.filter((e) =>
    /\/security\/log(in|out)$|\/applicationinfo\/version$/.test(e.path),
  );
  const pages = exchanges.filter((e) => e.path.startsWith("/contentapi/")).length;
  const metadata = exchanges.length - session.length - pages;
  const minimum = { pages: Math.floor(RECORDS / PAGE) + 1, metadata: 3 };
  figures.push(
    `plan requests: ${pages + metadata} (${pages} Content API pages, ${metadata} metadata reads), minimum ${minimum.pages + minimum.metadata} (${minimum.pages} + ${minimum.metadata}); and the session's ${session.length} (login, version, logout)`,
  );
  return { count: pages + metadata, minimum: minimum.pages + minimum.metadata };
}

/** Every record of the level, read back through egp's own retrying client. */
async function readBack(url: string): Promise<Array<Record<string, unknown>>> {
  const { createClient } = await import("../src/client/client.ts");
  const client = createClient({ url, instance: "Default", username: "sysadmin", password: PASSWORD });
  try {
    const app = (await client.metadata.applications()).find((a) => a.Name === APPLICATION);
    const [level] = await client.metadata.levelsByModule(app?.Id ?? 0);
    return await client.contentApi.allRecords(level?.Alias ?? "", { select: SELECT });
  } finally {
    await client.close();
  }
}

/** The apply of C changed records against an instance that fails some requests; then the count. */
async function applyChanged(): Promise<string | undefined> {
  const emulator = await spawnEmulator({
    seed: `scale:records=${RECORDS}`,
    faults: FAULTS,
    dist: !FROM_SOURCE,
  });
  const entries = changedEntries();
  const dir = repository(emulator.url, recordDocument(entries));
  try {
    const applied = await egp(dir, ["apply", "--yes"]);
    figures.push(
      `apply: ${entries.length} changed records (${Math.floor(CHANGED / 2)} updates, ${CHANGED - Math.floor(CHANGED / 2)} creates) at concurrency ${CONCURRENCY} in ${(applied.ms / 1000).toFixed(1)} s (load ${loadAverage().toFixed(2)}), against ${FAULTS}`,
    );
    if (applied.code !== 0) {
      process.stderr.write(applied.stdout.split("\n").slice(-40).join("\n"));
      return `the apply exited ${applied.code}`;
    }
    const records = await readBack(emulator.url);
    const keys = records.map((r) => String(r.Record_Key));
    const expected = RECORDS + (CHANGED - Math.floor(CHANGED / 2));
    const distinct = new Set(keys).size;
    const titles = new Map(records.map((r) => [String(r.Record_Key), String(r.Title)]));
    const wrong = entries.filter(([n, title]) => titles.get(key(n)) !== title).length;
    figures.push(
      `apply check: ${records.length} records (expected ${expected}), ${keys.length - distinct} duplicate keys, ${wrong} of ${entries.length} changed records not as written`,
    );
    if (records.length !== expected || distinct !== keys.length || wrong > 0)
      return "the records after the apply are not the ones planned";
    const again = await egp(dir, ["plan", "--detailed-exitcode"]);
    if (again.code !== 0) return 'a plan after the apply is not "No changes"';
    return undefined;
  } finally {
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<Verdict> {
  console.log(machine());
  console.log(
    `records: ${RECORDS} in ${APPLICATION}, ${MANAGED} managed, ${CHANGED} changed; latency ${LATENCY_MS} ms; concurrency ${CONCURRENCY}; ${ROUNDS} rounds`,
  );
  const emulator = await spawnEmulator({ seed: `scale:records=${RECORDS}`, dist: !FROM_SOURCE });
  const proxy = await startProxy(emulator.url, { latencyMs: LATENCY_MS });
  const behind = repository(proxy.url, recordDocument(managedEntries()));
  const loopback = repository(emulator.url, recordDocument(managedEntries()));
  const failures: string[] = [];
  try {
    const requests = await planRequests(behind, (into) => proxy.trace(into));
    if (requests.count > requests.minimum)
      failures.push(`the plan made ${requests.count} requests, over the minimum ${requests.minimum}`);
    const remote = await planRounds(proxy.url, behind, `behind the proxy (${LATENCY_MS} ms)`);
    if (remote.ratio > RATIO_TARGET)
      failures.push(
        `behind the proxy the plan took ${remote.ratio.toFixed(2)}× the bare reader (target ${RATIO_TARGET})`,
      );
    const local = await planRounds(emulator.url, loopback, "on loopback");
    if (local.ratio > LOOPBACK_GUARD)
      failures.push(
        `on loopback the plan took ${local.ratio.toFixed(2)}× the bare reader (guard ${LOOPBACK_GUARD})`,
      );
    const peakMb = Math.max(remote.peakMb, local.peakMb);
    figures.push(`plan peak RSS: ${Math.round(peakMb)} MB (target < ${RSS_LIMIT_MB} MB)`);
    if (peakMb >= RSS_LIMIT_MB) failures.push(`the plan's peak RSS was ${Math.round(peakMb)} MB`);
  } finally {
    await proxy.close();
    await emulator.stop();
    rmSync(behind, { recursive: true, force: true });
    rmSync(loopback, { recursive: true, force: true });
  }
  const applied = await applyChanged();
  if (applied) failures.push(applied);
  return failures.length === 0 ? { pass: true } : { pass: false, reason: failures.join("; ") };
}

await finishFair(DEADLINE_MS, gate, main, () => figures);
process.exit();
