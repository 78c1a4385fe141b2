import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { freemem, totalmem } from "node:os";

/*
 * Memory and CPU of processes, read from /proc (Linux). Benches measure other processes (an
 * emulator child, an egp child) so that their own buffers never count.
 */

const MB = 1024 * 1024;

export interface Memory {
  /** Resident set now, MB. */
  rss: number;
  /** Peak resident set (VmHWM), MB. */
  hwm: number;
}

export function memoryOf(pid: number | "self"): Memory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

/** Resets a process's VmHWM to its current RSS (Linux 4.0+); false when the kernel refuses. */
export function resetPeak(pid: number | "self"): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const answer = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
    const parsed = Number(answer.stdout?.trim());
    ticksPerSecond = Number.isInteger(parsed) && parsed > 0 ? parsed : 100;
  }
  return ticksPerSecond;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces); index 0 is field 3. */
function statFields(pid: number | "self"): string[] {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
}

/** CPU seconds (user + system) a live process has used. */
export function cpuSecondsOf(pid: number | "self"): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

/**
 * CPU seconds (user + system) of this process's children that have exited and been waited for:
 * the way to read what a finished child used, which its own /proc entry can no longer tell.
 */
export function exitedChildrenCpuSeconds(): number {
  const fields = statFields("self");
  return (Number(fields[13]) + Number(fields[14])) / clockTicks();
}

/** The system (kernel) part of exitedChildrenCpuSeconds. */
export function exitedChildrenSystemSeconds(): number {
  return Number(statFields("self")[14]) / clockTicks();
}

/** Samples a process's RSS every `everyMs` and keeps the highest value seen. */
export class RssSampler {
  peak = 0;
  private timer: NodeJS.Timeout | undefined;

  start(pid: number, everyMs = 20): void {
    this.peak = 0;
    this.timer = setInterval(() => {
      try {
        this.peak = Math.max(this.peak, memoryOf(pid).rss);
      } catch {
        // The process ended between two samples.
      }
    }, everyMs);
    this.timer.unref();
  }

  stop(): number {
    clearInterval(this.timer);
    return this.peak;
  }
}

/** The machine, for the record printed at the top of every bench. */
export function machine(): string {
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const cpus = spawnSync("nproc", { encoding: "utf8" }).stdout?.trim() || "?";
  return (
    `machine: ${cpus} cores, ${(totalmem() / 1024 / MB).toFixed(1)} GiB RAM ` +
    `(${(freemem() / 1024 / MB).toFixed(1)} GiB free), node ${process.version}, load ${load}`
  );
}

/** The 1-minute load average. */
export function loadAverage(): number {
  return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
}
