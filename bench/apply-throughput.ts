import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runEgp } from "./lib/egp-cli.ts";
import { spawnEmulator } from "./lib/emulator-child.ts";
import { cpuSecondsOf, exitedChildrenCpuSeconds, machine } from "./lib/proc.ts";
import { BENCH_PASSWORD_VARIABLE, writeRepo } from "./lib/repo.ts";
import { finish } from "./lib/verdict.ts";

/*
 * §3 apply throughput: `egp apply` creates N users (default 1,000) on a fresh emulator (a child
 * process, seed `empty`) at concurrency 1, 4 and 8, through an http environment file. For each run:
 * - users/s over the execution phase (first step started → last step done) and over the whole
 *   command (start-up, plan, execution, verification plan);
 * - CPU seconds of the emulator and of egp, and the emulator's share of one core over the
 *   execution phase (utime+stime from /proc/<pid>/stat against wall time), so that a reader sees
 *   which side is the bottleneck.
 *
 *   bash scripts/node24 node bench/apply-throughput.ts [--users N] [--concurrency 1,4,8] [--dist]
 *
 * Bounded: 6 minutes in all. The environment caps requests at 1,000/s (the highest
 * `limits.requestsPerSecond` allows), so the cap is not what limits these runs.
 * Target: every run creates exactly N users and its verification plan is empty (exit 0); DESIGN §5
 * sets no rate, so the figures are reported, not judged.
 */

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? (args[at + 1] as string) : fallback;
};
const USERS = Number(option("users", "1000"));
const LEVELS = option("concurrency", "1,4,8").split(",").map(Number);
const DIST = args.includes("--dist");
const DEADLINE_MS = 6 * 60_000;
const PASSWORD = "Password1!";

interface LevelResult {
  concurrency: number;
  ok: boolean;
  created: number;
  line: string;
}

async function runLevel(concurrency: number): Promise<LevelResult> {
  const emulator = await spawnEmulator({ seed: "empty", dist: DIST });
  const dir = mkdtempSync(join(tmpdir(), "egp-bench-apply-"));
  try {
    writeRepo(dir, {
      environments: { bench: { url: emulator.url, concurrency } },
      users: USERS,
      userPrefix: `c${concurrency}u`,
    });
    const emulatorCpuBefore = cpuSecondsOf(emulator.pid);
    const egpCpuBefore = exitedChildrenCpuSeconds();
    let emulatorCpuAtStart = emulatorCpuBefore;
    let emulatorCpuAtEnd = emulatorCpuBefore;
    let egpPid = 0;
    let egpCpuAtStart = -1;
    let egpCpuAtEnd = 0;
    const run = await runEgp(["apply", "--env", "bench", "--yes", "--dir", dir], {
      env: { [BENCH_PASSWORD_VARIABLE]: PASSWORD, ...(DIST ? { EGP_USE_DIST: "1" } : {}) },
      onSpawn: (pid) => {
        egpPid = pid;
      },
      killWhen: (line) => {
        // Sample both processes' CPU at the phase edges, without stopping the run.
        if (line.endsWith(": started") && egpCpuAtStart < 0) {
          emulatorCpuAtStart = cpuSecondsOf(emulator.pid);
          egpCpuAtStart = cpuSecondsOf(egpPid);
        }
        if (/: done in \d+ ms$/.test(line)) {
          emulatorCpuAtEnd = cpuSecondsOf(emulator.pid);
          egpCpuAtEnd = cpuSecondsOf(egpPid);
        }
        return false;
      },
    });
    const emulatorCpu = cpuSecondsOf(emulator.pid) - emulatorCpuBefore;
    const egpCpu = exitedChildrenCpuSeconds() - egpCpuBefore;
    const created = (/Apply complete: (\d+) added/.exec(run.stdout)?.[1] ?? "0") as string;
    const verified = run.stdout.includes("Verified: bench matches the manifests.");
    const execMs = (run.lastDone ?? 0) - (run.firstStart ?? 0);
    const share = (cpu: number) => (execMs > 0 ? (cpu / (execMs / 1000)) * 100 : 0);
    const execShare = share(emulatorCpuAtEnd - emulatorCpuAtStart);
    const egpExecShare = share(egpCpuAtEnd - egpCpuAtStart);
    const line =
      `concurrency ${concurrency}: ${(USERS / (execMs / 1000)).toFixed(0)} users/s executing ` +
      `(${(execMs / 1000).toFixed(2)} s), ${(USERS / (run.ms / 1000)).toFixed(0)} users/s whole command ` +
      `(${(run.ms / 1000).toFixed(2)} s); CPU: emulator ${emulatorCpu.toFixed(2)} s ` +
      `(${execShare.toFixed(0)}% of a core while executing), egp ${egpCpu.toFixed(2)} s ` +
      `(${egpExecShare.toFixed(0)}% of a core while executing)`;
    const ok = run.code === 0 && verified && Number(created) === USERS;
    if (!ok)
      console.log(`  exit ${run.code}; stderr: ${run.stderr.trim().split("\n").slice(-3).join(" | ")}`);
    return { concurrency, ok, created: Number(created), line };
  } finally {
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await finish(DEADLINE_MS, async () => {
  console.log(machine());
  console.log(
    `apply throughput: ${USERS} users per run on a fresh emulator child (seed empty, ${DIST ? "dist/" : "sources"}); bound ${DEADLINE_MS / 60_000} min`,
  );
  const failures: string[] = [];
  for (const concurrency of LEVELS) {
    const result = await runLevel(concurrency);
    console.log(result.line);
    if (!result.ok)
      failures.push(`concurrency ${concurrency} created ${result.created} of ${USERS} or did not verify`);
  }
  console.log("target: every run creates all users and verifies (no rate target in DESIGN §5)");
  return failures.length === 0 ? { pass: true } : { pass: false, reason: failures.join("; ") };
});
