import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, spawnEmulator } from "./lib/emulator-child.ts";
import {
  authorization,
  bigPackage,
  packageSize,
  rawLogin,
  rawUpload,
  smallPackage,
} from "./lib/package-zip.ts";
import {
  cpuSecondsOf,
  exitedChildrenCpuSeconds,
  exitedChildrenSystemSeconds,
  machine,
  memoryOf,
} from "./lib/proc.ts";
import { reportOfChild } from "./lib/report-child.ts";
import { finishFair, LoadGate, median, orderOf, roundsOf } from "./lib/rounds.ts";
import { CPU_TARGET, judgeTransfer, RSS_LIMIT_MB } from "./lib/transfer-judgement.ts";

/*
 * Package promotion: a ~500 MB package on a source emulator goes to a target emulator (two emulator
 * children), by
 * - egp: a child process that does only this with the egp client, `promotePackage` (the download
 *   to a file, teed into the upload to the target while it runs), run with the Node flags of egp's
 *   launcher (the shebang of bin/egp.js); its peak RSS (VmHWM of the whole process, start-up
 *   included) is the figure for "the egp process";
 * - curl: `curl -o` for the download, then `curl -F file=@…;type=application/zip` for the upload,
 *   with the session header, against the same emulators, one after the other; then `sha256sum` of
 *   the downloaded file, the digest egp computes as it downloads (the artifact store and the
 *   release gate need it), so that both sides do the same work.
 * Each figure is paired within a round (transfers slow down as a run goes on, for both tools: the
 * target keeps every upload), over at least 6 interleaved rounds (lib/rounds.ts), the median of
 * the rounds' ratios. Judged: egp's CPU (user + system of the child, all threads, during the
 * promotion) over curl's two transfers plus sha256sum's. Printed, not judged: egp's promotion time
 * over the slower of curl's two transfers (the floor of a pipelined design) and over curl's
 * download + upload, which on 2 shared cores swing by half between runs of the same code. The
 * emulators' CPU during each tool's run and egp's whole-process CPU (Node's start-up included) are
 * printed beside them.
 *
 *   bash scripts/node24 node bench/transfer.ts [--mb 500] [--rounds 6] [--dist]
 *
 * `--dist` runs the client and emulators from the compiled dist/ (`npm run build` first); by default
 * they run from the sources, as `bin/egp.js` does in a checkout. `--mb 20` checks that it runs (the
 * figures of so small a file are start-up and noise).
 * Targets (DESIGN §5): egp's CPU ≤ curl's two transfers plus sha256sum of the file; egp peak RSS
 * < 150 MB. Above a one-minute load of 1.5 (before the bench starts) the verdict is `NO VERDICT:
 * load L`. The last lines are the figures, the judged ones first, and the load. Bounded: 10
 * minutes. Needs about (3 + 2 × rounds) × size of free disk in the temp folder.
 */

const MB = 1024 * 1024;
const PASSWORD = "Password1!";
const DEADLINE_MS = 10 * 60_000;

interface ClientReport {
  /** The whole promotion: download and upload, overlapped. */
  promotionMs: number;
  /** When the download had all its bytes, from the start. */
  downloadMs: number;
  /** CPU (user + system) of the egp process during the promotion, all threads. */
  cpuMs: number;
  /** The system (kernel) part of cpuMs: the copies to and from sockets and the page cache. */
  systemMs: number;
  /** CPU of the whole egp process up to the end of the promotion: Node's start-up included. */
  processCpuMs: number;
  bytes: number;
  sha256: string;
  targetId: number;
  hwm: number;
  from: string;
}

/* ---------- the egp child: only the client, so that its memory is the client's ---------- */

async function clientChild(sourceUrl: string, targetUrl: string, id: number, file: string): Promise<void> {
  const entry = process.env.EGP_BENCH_DIST ? join(ROOT, "dist/index.js") : join(ROOT, "src/index.ts");
  const { createClient } = (await import(entry)) as typeof import("../src/index.ts");
  // The promotion's transfer is the client's own, not the library's API (no gate runs around it).
  const promoteEntry = process.env.EGP_BENCH_DIST
    ? join(ROOT, "dist/client/promote.js")
    : join(ROOT, "src/client/promote.ts");
  const { promotePackage } = (await import(promoteEntry)) as typeof import("../src/client/promote.ts");
  const password = process.env.EGP_BENCH_PASSWORD ?? "";
  const options = (url: string) => ({
    url,
    instance: "Default",
    username: "sysadmin",
    password,
    limits: { requestsPerSecond: 0 },
  });
  const source = createClient(options(sourceUrl));
  const target = createClient(options(targetUrl));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let downloadMs = 0;
  const result = await promotePackage(source, target, id, file, {
    fileName: "promoted.zip",
    onDownload: (p) => {
      if (p.bytes === p.total) downloadMs = performance.now() - started;
    },
  });
  const promotionMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const whole = process.resourceUsage();
  if (result.uploaded === undefined) throw new Error(`the upload failed: ${String(result.uploadError)}`);
  await Promise.all([source.close(), target.close()]);
  const report: ClientReport = {
    promotionMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    systemMs: cpu.system / 1000,
    processCpuMs: (whole.userCPUTime + whole.systemCPUTime) / 1000,
    downloadMs,
    bytes: result.bytes,
    sha256: result.sha256,
    targetId: result.uploaded,
    hwm: memoryOf("self").hwm,
    from: entry.slice(ROOT.length + 1),
  };
  process.stdout.write(JSON.stringify(report));
}

/* ---------- the parent ---------- */

interface Timing {
  tool: "egp" | "curl";
  /** egp: when its download completed; curl: its download. */
  downloadMs: number;
  /** curl only: its upload, after the download. */
  uploadMs: number;
  /** The whole promotion: egp's overlapped, curl's download + upload. */
  totalMs: number;
  /** CPU: egp's during the promotion, or curl's for both transfers. */
  cpuMs: number;
  /** The system (kernel) part of cpuMs. */
  systemMs: number;
  /** egp only: its whole process's CPU, Node's start-up included. */
  processCpuMs: number;
  /** curl only: sha256sum of the downloaded file, wall time and CPU. */
  hashMs: number;
  hashCpuMs: number;
  /** curl only: `openssl dgst -sha256` of the file, a hash with the CPU's SHA instructions (NaN without openssl). */
  opensslCpuMs: number;
  /** The file's sha256: egp's, computed as it downloaded; sha256sum's of curl's file. */
  sha256: string;
  /** CPU of the two emulators during this tool's run. */
  emulatorsCpuMs: number;
  targetId: number;
  rss?: { hwm: number; sampled: number };
}

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
};

async function runEgpTransfer(
  urls: [string, string],
  id: number,
  file: string,
  dist: boolean,
): Promise<Timing> {
  const args = ["--client", ...urls, String(id), file];
  const { report, sampledMb } = await reportOfChild<ClientReport>(
    "egp transfer",
    join(ROOT, "bench/transfer.ts"),
    args,
    { password: PASSWORD, dist },
  );
  return {
    tool: "egp",
    downloadMs: report.downloadMs,
    uploadMs: 0,
    totalMs: report.promotionMs,
    cpuMs: report.cpuMs,
    systemMs: report.systemMs,
    processCpuMs: report.processCpuMs,
    hashMs: 0,
    hashCpuMs: 0,
    opensslCpuMs: 0,
    sha256: report.sha256,
    emulatorsCpuMs: 0,
    targetId: report.targetId,
    rss: { hwm: report.hwm, sampled: sampledMb },
  };
}

/** Runs a tool to its end; its CPU is read from this process's account of waited-for children. */
function tool(
  command: string,
  args: string[],
): { ms: number; cpuMs: number; systemMs: number; stdout: string } {
  const cpuBefore = exitedChildrenCpuSeconds();
  const systemBefore = exitedChildrenSystemSeconds();
  const started = performance.now();
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: MB });
  const ms = performance.now() - started;
  const cpuMs = (exitedChildrenCpuSeconds() - cpuBefore) * 1000;
  const systemMs = (exitedChildrenSystemSeconds() - systemBefore) * 1000;
  if (result.status !== 0) throw new Error(`${command} exited ${result.status}: ${result.stderr.trim()}`);
  return { ms, cpuMs, systemMs, stdout: result.stdout };
}

const curl = (args: string[]) => tool("curl", ["-sS", "--fail-with-body", ...args]);

function runCurlTransfer(
  urls: [string, string],
  headerFiles: [string, string],
  id: number,
  file: string,
): Timing {
  const download = curl([
    "-H",
    `@${headerFiles[0]}`,
    "-o",
    file,
    `${urls[0]}/api/core/package/download/${id}`,
  ]);
  const upload = curl([
    "-H",
    `@${headerFiles[1]}`,
    "-H",
    "Accept: application/json",
    "-F",
    `file=@${file};type=application/zip`,
    `${urls[1]}/api/core/package/upload`,
  ]);
  // After the upload, so that curl's two transfers run as they always have, back to back.
  const hash = tool("sha256sum", [file]);
  // Printed beside it: coreutils' sha256sum may hash without the SHA instructions that egp's
  // OpenSSL uses, which makes it the slower of the two.
  const openssl = HAS_OPENSSL ? tool("openssl", ["dgst", "-sha256", file]).cpuMs : Number.NaN;
  const targetId = Number(
    (JSON.parse(upload.stdout) as { RequestedObject?: { Id?: number } }).RequestedObject?.Id,
  );
  return {
    tool: "curl",
    downloadMs: download.ms,
    uploadMs: upload.ms,
    totalMs: download.ms + upload.ms,
    cpuMs: download.cpuMs + upload.cpuMs,
    systemMs: download.systemMs + upload.systemMs,
    processCpuMs: 0,
    hashMs: hash.ms,
    hashCpuMs: hash.cpuMs,
    opensslCpuMs: openssl,
    sha256: hash.stdout.split(" ")[0] ?? "",
    emulatorsCpuMs: 0,
    targetId,
  };
}

const rate = (bytes: number, ms: number) => bytes / MB / (ms / 1000);

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function describe(timing: Timing, size: number): string {
  const rss = timing.rss
    ? `; peak RSS ${timing.rss.hwm.toFixed(1)} MB (sampled ${timing.rss.sampled.toFixed(1)} MB)`
    : "";
  const cpu = `CPU ${seconds(timing.cpuMs)} (kernel ${seconds(timing.systemMs)})`;
  const emulators = `emulators' CPU ${seconds(timing.emulatorsCpuMs)}`;
  if (timing.tool === "egp")
    return (
      `egp : promotion ${seconds(timing.totalMs)} (${rate(size, timing.totalMs).toFixed(0)} MB/s), ` +
      `download complete at ${seconds(timing.downloadMs)}, ${cpu}, whole process ${seconds(timing.processCpuMs)}, ${emulators}${rss}`
    );
  return (
    `curl: download ${seconds(timing.downloadMs)} (${rate(size, timing.downloadMs).toFixed(0)} MB/s), ` +
    `upload ${seconds(timing.uploadMs)} (${rate(size, timing.uploadMs).toFixed(0)} MB/s), ` +
    `one after the other ${seconds(timing.totalMs)}, ${cpu}; sha256sum ${seconds(timing.hashMs)}, CPU ${seconds(timing.hashCpuMs)}${HAS_OPENSSL ? ` (openssl's ${seconds(timing.opensslCpuMs)})` : ""}; ${emulators}`
  );
}

/** The verdict's figures, printed as the last lines, after the verdict (lib/rounds.ts adds the load). */
let verdictLines: string[] = [];

async function main() {
  const sizeMB = option("mb", 500);
  const rounds = roundsOf(option("rounds", 6));
  const dist = argv.includes("--dist");
  console.log(machine());
  console.log(
    `transfer: ${sizeMB} MB package, ${rounds} interleaved rounds, client and emulators from ${dist ? "dist/" : "the sources"}; bound ${DEADLINE_MS / 60_000} min; load before start ${gate.before.toFixed(2)}`,
  );
  const work = mkdtempSync(join(tmpdir(), "egp-bench-transfer-"));
  const source = await spawnEmulator({ seed: "demo-dev", dist });
  const target = await spawnEmulator({ seed: "demo-prod", dist });
  try {
    const urls: [string, string] = [source.url, target.url];
    const tokens = [await rawLogin(source.url, PASSWORD), await rawLogin(target.url, PASSWORD)];
    // curl reads the session header from files, so that no token is on a command line.
    const headerFiles = tokens.map((token, i) => {
      const path = join(work, `header-${i}.txt`);
      writeFileSync(path, `Authorization: ${authorization(token)}\n`, { mode: 0o600 });
      return path;
    }) as [string, string];

    const small = join(work, "small.zip");
    const big = join(work, "big.zip");
    await smallPackage(source.url, tokens[0] as string, small);
    await bigPackage(small, big, sizeMB);
    const size = statSync(big).size;
    const sourceId = await rawUpload(source.url, tokens[0] as string, big);
    rmSync(big);
    console.log(`package: ${(size / MB).toFixed(1)} MB, package ${sourceId} on the source`);

    const egp: Timing[] = [];
    const curls: Timing[] = [];
    const problems: string[] = [];
    const emulatorsCpu = () => (cpuSecondsOf(source.pid) + cpuSecondsOf(target.pid)) * 1000;
    for (let round = 1; round <= rounds; round++) {
      for (const tool of orderOf(round, "egp", "curl")) {
        const file = join(work, `${tool}-${round}.zip`);
        const emulatorsBefore = emulatorsCpu();
        const timing =
          tool === "egp"
            ? await runEgpTransfer(urls, sourceId, file, dist)
            : runCurlTransfer(urls, headerFiles, sourceId, file);
        timing.emulatorsCpuMs = emulatorsCpu() - emulatorsBefore;
        if (statSync(file).size !== size)
          problems.push(`${tool} round ${round}: downloaded a file of another size`);
        rmSync(file);
        (tool === "egp" ? egp : curls).push(timing);
        console.log(`round ${round} ${describe(timing, size)}`);
      }
    }
    // Every upload arrived whole: the target reports each package at the full size.
    const sizes = await Promise.all(
      [...egp, ...curls].map((t) => packageSize(target.url, tokens[1] as string, t.targetId)),
    );
    const whole = sizes.filter((s) => s === size).length;
    console.log(`target holds ${whole} uploads of ${size} bytes (expected ${2 * rounds})`);
    if (whole !== 2 * rounds) problems.push(`${whole} of ${2 * rounds} uploads arrived whole`);

    const peak = Math.max(...egp.map((t) => t.rss?.hwm ?? 0));
    const judged = judgeTransfer(egp, curls, peak);
    const list = (values: number[]) => values.map((v) => v.toFixed(2)).join(", ");
    const medianOf = (
      timings: Timing[],
      key: "totalMs" | "cpuMs" | "systemMs" | "processCpuMs" | "hashMs" | "hashCpuMs" | "emulatorsCpuMs",
    ) => seconds(median(timings.map((t) => t[key])));
    console.log(
      `median CPU: egp's promotion ${medianOf(egp, "cpuMs")} (kernel ${medianOf(egp, "systemMs")}; whole process, start-up included, ${medianOf(egp, "processCpuMs")}; emulators ${medianOf(egp, "emulatorsCpuMs")}), curl both transfers ${medianOf(curls, "cpuMs")} (kernel ${medianOf(curls, "systemMs")}; emulators ${medianOf(curls, "emulatorsCpuMs")}) + sha256sum ${medianOf(curls, "hashCpuMs")} = ${seconds(median(curls.map((t) => t.cpuMs + t.hashCpuMs)))}`,
    );
    console.log(
      `median wall: egp promotion ${medianOf(egp, "totalMs")}, curl's slower transfer ${seconds(median(curls.map((t) => Math.max(t.downloadMs, t.uploadMs))))}, curl download + upload ${medianOf(curls, "totalMs")}, sha256sum ${medianOf(curls, "hashMs")}`,
    );
    console.log(
      `by round: egp CPU / (curl CPU + sha256sum CPU) ${list(judged.cpuRatios)}; egp CPU / curl CPU alone ${list(judged.overCurlCpu)}; egp CPU / (curl CPU + openssl's sha256) ${list(judged.overOpenssl)}; promotion / slower curl transfer ${list(judged.overSlower)}; / curl sequential ${list(judged.overSequential)}`,
    );
    console.log(
      `target: egp's CPU ≤ ${CPU_TARGET} × curl's two transfers plus sha256sum of the file (median of rounds), egp peak RSS < ${RSS_LIMIT_MB} MB; wall-time ratios printed, not judged`,
    );
    problems.push(...judged.problems);
    verdictLines = judged.lines;
    return problems.length === 0 ? { pass: true } : { pass: false, reason: problems.join("; ") };
  } finally {
    await Promise.all([source.stop(), target.stop()]);
    rmSync(work, { recursive: true, force: true });
  }
}

// Taken first, before the bench's own processes add to it.
const gate = new LoadGate();
const HAS_OPENSSL = argv[0] !== "--client" && spawnSync("openssl", ["version"]).status === 0;

if (argv[0] === "--client") {
  await clientChild(argv[1] as string, argv[2] as string, Number(argv[3]), argv[4] as string);
} else {
  const missing = ["curl", "sha256sum"].filter((command) => spawnSync(command, ["--version"]).status !== 0);
  if (missing.length === 0) {
    await finishFair(DEADLINE_MS, gate, main, () => verdictLines);
  } else console.log(`FAIL (${missing.join(" and ")} not installed: the comparison needs them)`);
}
