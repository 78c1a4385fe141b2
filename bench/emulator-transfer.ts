import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { launcherFlags } from "./lib/emulator-child.ts";
import { bigPackage, rawDownload, rawLogin, rawUpload, smallPackage } from "./lib/package-zip.ts";
import { memoryOf } from "./lib/proc.ts";
import { finish } from "./lib/verdict.ts";

/*
 * Large package transfer through the emulator: a ~300 MB package is uploaded (multipart, streamed
 * from disk) and downloaded back (streamed to disk), while the emulator's resident memory is
 * watched. Target: the emulator's peak RSS (VmHWM) stays below 200 MB.
 *
 *   bash scripts/node24 node bench/emulator-transfer.ts [sizeMB] [--source]
 *
 * By default it builds the project (`tsc -p tsconfig.build.json`, as `npm run build` does) and
 * runs `bin/egp.js emulator` on the compiled dist/, the form the package ships. `--source` runs
 * the TypeScript sources instead: Node's type stripping then adds about 17 MB to the process.
 */

const args = process.argv.slice(2);
const FROM_SOURCE = args.includes("--source");
const SIZE_MB = Number(args.find((a) => /^\d+$/.test(a)) ?? 300);
const RSS_LIMIT_MB = 200;
const DEADLINE_MS = 120_000;
const MB = 1024 * 1024;

const root = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "egp-bench-transfer-"));
// The work folder goes whatever happens: the deadline, a child mode's early exit, a re-exec.
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

/** Compiles to dist/ like `npm run build`; type errors elsewhere do not stop tsc from emitting. */
function build(): void {
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
    cwd: root,
    encoding: "utf8",
  });
  if (!existsSync(join(root, "dist/cli/main.js")))
    throw new Error(`build failed: ${result.stdout}${result.stderr}`);
  if (result.status !== 0) console.log("note: tsc reported type errors; measuring what it emitted");
}

function startEmulator(): Promise<{ child: ChildProcess; url: string }> {
  // As egp's launcher runs it (the Node flags of bin/egp.js's shebang, none today).
  const argv = [
    ...launcherFlags(),
    join(root, "bin/egp.js"),
    "emulator",
    "--port",
    "0",
    "--seed",
    "demo-dev",
  ];
  const child = spawn(process.execPath, argv, {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, EGP_USE_DIST: FROM_SOURCE ? "" : "1" },
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.once("exit", (code) => reject(new Error(`emulator exited early (${code})`)));
  });
}

async function sha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

function rate(bytes: number, ms: number): string {
  return `${(bytes / MB / (ms / 1000)).toFixed(1)} MB/s`;
}

async function main(): Promise<boolean> {
  if (!FROM_SOURCE) build();
  console.log(
    `emulator: bin/egp.js emulator --seed demo-dev, from ${FROM_SOURCE ? "the TypeScript sources" : "dist/"}`,
  );
  const { child, url } = await startEmulator();
  const pid = child.pid as number;
  let sampledPeak = 0;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, memoryOf(pid).rss);
  }, 50);
  try {
    const token = await rawLogin(url, "Password1!");
    const idle = memoryOf(pid);
    const big = join(work, "big.zip");
    const small = join(work, "small.zip");
    await smallPackage(url, token, small);
    await bigPackage(small, big, SIZE_MB);
    const size = statSync(big).size;
    const digest = await sha256(big);
    console.log(`package: ${(size / MB).toFixed(1)} MB, sha256 ${digest.slice(0, 16)}…`);
    console.log(`emulator RSS after start: ${idle.rss.toFixed(1)} MB`);

    let started = performance.now();
    const id = await rawUpload(url, token, big);
    const uploadMs = performance.now() - started;
    console.log(
      `upload (stream to disk + safe zip check): ${(uploadMs / 1000).toFixed(2)} s, ${rate(size, uploadMs)}`,
    );
    const afterUpload = memoryOf(pid);
    console.log(
      `emulator RSS after upload: ${afterUpload.rss.toFixed(1)} MB (peak so far ${afterUpload.hwm.toFixed(1)} MB)`,
    );

    const back = join(work, "back.zip");
    started = performance.now();
    await rawDownload(url, token, id, back);
    const downloadMs = performance.now() - started;
    console.log(`download: ${(downloadMs / 1000).toFixed(2)} s, ${rate(size, downloadMs)}`);

    const same = statSync(back).size === size && (await sha256(back)) === digest;
    console.log(`round trip: ${same ? "same size and sha256" : "FILES DIFFER"}`);
    const { hwm } = memoryOf(pid);
    console.log(
      `emulator peak RSS: ${hwm.toFixed(1)} MB (VmHWM), ${sampledPeak.toFixed(1)} MB (sampled every 50 ms)`,
    );
    const pass = same && hwm < RSS_LIMIT_MB;
    console.log(`target: peak RSS < ${RSS_LIMIT_MB} MB`);
    return pass;
  } finally {
    clearInterval(sampler);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await Promise.race([exited, sleep(5000)]);
  }
}

await finish(DEADLINE_MS, async () => ({ pass: await main() }));
