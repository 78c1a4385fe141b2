import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import type { PlatformClient } from "../src/index.ts";
import { finish } from "./lib/verdict.ts";

/*
 * Large package transfer through the client: a ~300 MB package is uploaded (multipart, streamed
 * from disk) and downloaded back (streamed to disk) with the egp client, against an emulator in a
 * child process, while THIS process's resident memory is watched. Target: peak RSS < 150 MB.
 *
 *   bash scripts/node24 node bench/client-transfer.ts [sizeMB]
 *
 * The big package file is built by a child process (`--build SMALL OUT`), so that its buffers do
 * not count; the peak RSS mark (VmHWM) is also reset through /proc/self/clear_refs before the
 * transfers, so that only they are measured. RSS is also sampled every 20 ms.
 */

const SIZE_MB = Number(process.env.EGP_BENCH_MB ?? process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 300);
const RSS_LIMIT_MB = 150;
const DEADLINE_MS = 180_000;
const MB = 1024 * 1024;
const RISK_REGISTER_GUID = "33528536-2b2b-5d6d-943c-276096d4be22";

const root = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "egp-bench-client-"));
// The work folder goes whatever happens: the deadline, a child mode's early exit, a re-exec.
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

function startEmulator(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(root, "bin/egp.js"), "emulator", "--port", "0", "--seed", "demo-dev"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
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

function memory(): { rss: number; hwm: number } {
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

/** Resets VmHWM to the current RSS (Linux 4.0+); false when the kernel refuses. */
function resetPeak(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** A real generated package, made and downloaded through the client; the big one reuses its entries. */
async function smallPackage(client: PlatformClient): Promise<string> {
  const id = await client.packages.create({
    Name: "bench seed",
    Description: null,
    PreparedBy: null,
    PackageObjects: [{ Guid: RISK_REGISTER_GUID, Type: "Application" }],
  });
  await client.packages.generate(id);
  for (;;) {
    const { Status } = await client.packages.get(id);
    if (Status === "Ready") break;
    if (Status === "Failed") throw new Error("generation failed");
    await sleep(50);
  }
  const file = join(work, "small.zip");
  await client.packages.download(id, file);
  return file;
}

/** Runs this script in a child for work whose buffers must not count (`--build`, `--sha256`). */
function inChild(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, EGP_BENCH_MB: String(SIZE_MB) },
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(`${args[0]} failed (${code})`)),
    );
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

/**
 * The client as it ships (compiled `dist/`, built by `npm run build`), or the sources when there is
 * no build: type stripping alone costs this process some 15 MB more.
 */
async function loadClient(): Promise<{
  createClient: typeof import("../src/index.ts").createClient;
  from: string;
}> {
  const dist = new URL("../dist/index.js", import.meta.url);
  if (process.env.EGP_BENCH_SOURCE !== "src" && existsSync(dist)) {
    return { ...((await import(dist.href)) as typeof import("../src/index.ts")), from: "dist/index.js" };
  }
  return { ...(await import("../src/index.ts")), from: "src/index.ts" };
}

async function main(): Promise<boolean> {
  const { createClient, from } = await loadClient();
  console.log(`client: ${from}`);
  const { child, url } = await startEmulator();
  const client = createClient({
    url,
    instance: "Default",
    username: "sysadmin",
    password: "Password1!",
    limits: { requestsPerSecond: 0 },
    logger: pino({ level: "warn" }),
  });
  console.log(`client RSS after start: ${memory().rss.toFixed(1)} MB`);
  let sampledPeak = 0;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, memory().rss);
  }, 20);
  try {
    const big = join(work, "big.zip");
    await inChild(["--build", await smallPackage(client), big]);
    const size = statSync(big).size;
    const digest = await inChild(["--sha256", big]);
    console.log(`package: ${(size / MB).toFixed(1)} MB, sha256 ${digest.slice(0, 16)}…`);

    const reset = resetPeak();
    sampledPeak = memory().rss;
    console.log(`client RSS before the transfers: ${memory().rss.toFixed(1)} MB (peak mark reset: ${reset})`);

    let lastUpload = 0;
    let started = performance.now();
    const id = await client.packages.upload(big, { onProgress: (p) => (lastUpload = p.bytes) });
    const uploadMs = performance.now() - started;
    console.log(
      `upload: ${(uploadMs / 1000).toFixed(2)} s, ${rate(size, uploadMs)}, progress ${lastUpload} bytes`,
    );
    console.log(
      `  RSS after upload: ${memory().rss.toFixed(1)} MB, peak so far ${memory().hwm.toFixed(1)} MB`,
    );

    const uploadPeak = memory().hwm;
    // Each phase is measured on its own: the download's peak does not hide behind the upload's.
    resetPeak();
    const back = join(work, "back.zip");
    let lastDownload = 0;
    started = performance.now();
    const { bytes } = await client.packages.download(id, back, {
      onProgress: (p) => (lastDownload = p.bytes),
    });
    const downloadMs = performance.now() - started;
    console.log(
      `download: ${(downloadMs / 1000).toFixed(2)} s, ${rate(bytes, downloadMs)}, progress ${lastDownload} bytes`,
    );

    const downloadPeak = memory().hwm;
    const same = bytes === size && (await inChild(["--sha256", back])) === digest;
    console.log(`round trip: ${same ? "same size and sha256" : "FILES DIFFER"}`);
    const peak = reset ? Math.max(uploadPeak, downloadPeak) : sampledPeak;
    console.log(
      `client peak RSS: upload ${uploadPeak.toFixed(1)} MB, download ${downloadPeak.toFixed(1)} MB (VmHWM${reset ? "" : ", not reset: includes the build"}); ` +
        `${sampledPeak.toFixed(1)} MB sampled every 20 ms`,
    );
    console.log(`target: peak RSS < ${RSS_LIMIT_MB} MB`);
    return same && peak < RSS_LIMIT_MB && lastUpload === size && lastDownload === size;
  } finally {
    clearInterval(sampler);
    await client.close();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await Promise.race([exited, sleep(5000)]);
  }
}

if (process.argv[2] === "--build") {
  // Built in a child process (this mode), so that its buffers do not count in the measured one.
  const { bigPackage } = await import("./lib/package-zip.ts");
  await bigPackage(process.argv[3] as string, process.argv[4] as string, SIZE_MB);
  process.exit(0);
}
if (process.argv[2] === "--sha256") {
  process.stdout.write(await sha256(process.argv[3] as string));
  process.exit(0);
}

await finish(DEADLINE_MS, async () => ({ pass: await main() }));
