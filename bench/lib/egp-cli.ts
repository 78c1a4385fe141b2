import { spawn } from "node:child_process";
import { BIN, launcherFlags, ROOT, reap } from "./emulator-child.ts";

/*
 * Runs the egp CLI in a child process, as a user runs it, reading its stdout line by line so that a
 * bench can time phases or SIGKILL it at a chosen line.
 */

export interface EgpRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** performance.now() of the first `: started` line and of the last `: done` line, if any. */
  firstStart?: number;
  lastDone?: number;
  startedAt: number;
  pid: number;
}

export interface EgpRunOptions {
  /** Only these variables (and PATH) reach the child, so that nothing of the machine leaks in. */
  env?: Record<string, string>;
  /** Called on every stdout line; returning true sends the child `signal` at once. */
  killWhen?: (line: string) => boolean;
  /** What killWhen sends: SIGKILL (a crash) by default, or SIGINT (Ctrl-C). */
  signal?: NodeJS.Signals;
  /** Called with the child's pid as soon as it runs. */
  onSpawn?: (pid: number) => void;
}

export function runEgp(args: readonly string[], options: EgpRunOptions = {}): Promise<EgpRun> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...launcherFlags(), BIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  reap(child);
  options.onSpawn?.(child.pid as number);
  const run: EgpRun = {
    code: null,
    signal: null,
    stdout: "",
    stderr: "",
    ms: 0,
    startedAt,
    pid: child.pid ?? 0,
  };
  let partial = "";
  let killed = false;
  child.stdout.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    run.stdout += text;
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (run.firstStart === undefined && line.endsWith(": started")) run.firstStart = performance.now();
      if (/: done in \d+ ms$/.test(line)) run.lastDone = performance.now();
      if (!killed && options.killWhen?.(line)) {
        killed = true;
        child.kill(options.signal ?? "SIGKILL");
      }
    }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    run.stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      run.code = code;
      run.signal = signal;
      run.ms = performance.now() - startedAt;
      resolve(run);
    });
  });
}

/** Lines of an apply's output that say a step's try failed and will be tried again. */
export function retryLines(stdout: string): number {
  return stdout.split("\n").filter((line) => / try \d+ failed \(/.test(line)).length;
}
