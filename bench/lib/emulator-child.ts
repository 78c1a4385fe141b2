import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/*
 * An emulator in a child process (`egp emulator --port 0`), so that a bench can measure its CPU and
 * memory apart from the load generator's.
 */

export const ROOT = join(import.meta.dirname, "..", "..");
export const BIN = join(ROOT, "bin", "egp.js");

/** Node flags of egp's launcher (the shebang of bin/egp.js), so that benches run egp as users do. */
export function launcherFlags(): string[] {
  // To measure other Node flags than the launcher's: EGP_BENCH_NODE_FLAGS="--max-semi-space-size=8".
  const override = process.env.EGP_BENCH_NODE_FLAGS;
  if (override !== undefined) return override.split(/\s+/).filter(Boolean);
  const shebang = readFileSync(BIN, "utf8").split("\n")[0] ?? "";
  return /\bnode\b(.*)$/.exec(shebang)?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
}

/** Children still running; a bench that exits early (its deadline) must not leave them behind. */
const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** Kills `child` if this process exits first. */
export function reap(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
}

export interface EmulatorChildOptions {
  seed?: string;
  /** A `--faults` spec. */
  faults?: string;
  /** Run the compiled dist/ (`npm run build` first) instead of the TypeScript sources. */
  dist?: boolean;
  /** Most time to wait for `listening on`. */
  startMs?: number;
  /** `--data FILE`: persist the state (every write committed before its answer). */
  dataFile?: string;
}

export interface EmulatorChild {
  child: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:PORT`. */
  url: string;
  stop(): Promise<void>;
}

export async function spawnEmulator(options: EmulatorChildOptions = {}): Promise<EmulatorChild> {
  const args = [
    ...launcherFlags(),
    BIN,
    "emulator",
    "--port",
    "0",
    "--host",
    "127.0.0.1",
    "--seed",
    options.seed ?? "empty",
  ];
  if (options.faults) args.push("--faults", options.faults);
  if (options.dataFile) args.push("--data", options.dataFile);
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "inherit"],
    env: { PATH: process.env.PATH ?? "", ...(options.dist ? { EGP_USE_DIST: "1" } : {}) },
  });
  reap(child);
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the emulator did not print "listening on" within ${options.startMs ?? 60_000} ms`));
    }, options.startMs ?? 60_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (!match?.[1]) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the emulator exited before listening (code ${code})`));
    });
  });
  // Keep draining stdout so that the child never blocks on a full pipe.
  child.stdout?.resume();
  return {
    child,
    pid: child.pid as number,
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      if ((await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)])) === false)
        child.kill("SIGKILL");
    },
  };
}
