import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { type Emulator, type FaultSpec, startEmulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { type EgpRun, retryLines, runEgp } from "./egp-cli.ts";
import { BENCH_PASSWORD_VARIABLE, type PackageSpec, writeRepo } from "./repo.ts";

/*
 * One seed of the chaos run (DESIGN §5), shared by bench/chaos.ts and test/chaos/chaos.test.ts.
 *
 * Two emulators in this process (demo-dev as the source, demo-prod as the target), both with random
 * faults from the seed: transient statuses at `faultRate` (500, 502, 503 and 429 with Retry-After),
 * connection resets before or after the work is done, and one forced expiry of the target's sessions.
 * `egp apply` runs in a child process and is SIGKILLed when a step chosen from the seed finishes;
 * a second apply then resumes and must finish, still under faults. Finally, with faults off, a plan
 * must show no changes, and the emulators' stores are searched for duplicates.
 */

export const CHAOS_PACKAGES: readonly PackageSpec[] = [
  // Each application differs between demo-dev and demo-prod, so each package has work to do.
  { name: "Controls", applications: ["Controls"] },
  { name: "Risk Register", applications: ["Risk Register"] },
  { name: "Findings", applications: ["Findings"] },
];

const PASSWORD = "Password1!";

export interface ChaosOptions {
  seed: number;
  users: number;
  parameters: number;
  /** 0 to 3 Package documents (from CHAOS_PACKAGES). */
  packages: number;
  concurrency?: number;
  faultRate?: number;
  resetRate?: number;
  /** Seconds of Retry-After on random 429 and 503 answers. */
  retryAfter?: number;
  /**
   * How the first apply is stopped halfway: SIGKILL (a crash; the re-run is `apply --resume`, the
   * same plan) or SIGINT (Ctrl-C: it exits 130 once the steps in flight end; the re-run is a plain
   * `apply`, which plans afresh and supersedes it).
   */
  interrupt?: "SIGKILL" | "SIGINT";
  log?: (line: string) => void;
}

export interface Duplicates {
  users: number;
  parameters: number;
  /** Created packages beyond one per Package document on the source, and one snapshot of it on the target. */
  packages: number;
  /** Applications on the target sharing a GUID or a name. */
  applications: number;
}

export interface ChaosResult {
  seed: number;
  converged: boolean;
  duplicates: Duplicates;
  duplicateCount: number;
  /** Steps whose try failed and was tried again (`try N failed` lines), over both applies. */
  stepRetries: number;
  /** Faults the emulators injected, by kind (status, reset, reset-after, expire). */
  injected: Record<string, number>;
  interrupt: "SIGKILL" | "SIGINT";
  killedAfterStep: number | null;
  expectedSteps: number;
  finalPlanEmpty: boolean;
  runs: Array<{ code: number | null; signal: string | null; seconds: number }>;
  /** Why it did not converge, when it did not. */
  problems: string[];
}

/** mulberry32: a small seeded generator, so that the kill point repeats for a seed. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function faultsFor(seed: number, options: ChaosOptions): Partial<FaultSpec> {
  return {
    seed,
    rate: options.faultRate ?? 0.2,
    statuses: [500, 502, 503, 429],
    reset: options.resetRate ?? 0.02,
    retryAfter: options.retryAfter ?? 1,
  };
}

/** How many names occur more than once, counting each extra occurrence. */
function extras(names: string[]): number {
  const seen = new Map<string, number>();
  for (const name of names) seen.set(name, (seen.get(name) ?? 0) + 1);
  return [...seen.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
}

export function duplicatesOf(source: Emulator, target: Emulator): Duplicates {
  // Promotions are created on the source; their snapshots (one per promotion) on the target.
  const created = [source, target].flatMap((side) =>
    Object.values(packagesOf(side.store).byId).filter((p) => p.Origin === "Created"),
  );
  const modules = catalogueOf(target.store)
    .all("modules")
    .filter((m) => m.Type === "Application");
  return {
    users: extras(target.store.allUsers().map((u) => u.user.UserName.toLowerCase())),
    parameters: extras(target.store.allSecurityParameters().map((p) => p.Name.toLowerCase())),
    packages: extras(created.map((p) => p.Name.toLowerCase())),
    applications:
      extras(modules.map((m) => m.Guid.toLowerCase())) + extras(modules.map((m) => m.Name.toLowerCase())),
  };
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [kind, n] of Object.entries(from)) into[kind] = (into[kind] ?? 0) + n;
}

function summary(run: EgpRun) {
  return { code: run.code, signal: run.signal, seconds: Math.round(run.ms / 100) / 10 };
}

export async function runChaosSeed(options: ChaosOptions): Promise<ChaosResult> {
  const log = options.log ?? (() => undefined);
  const packages = CHAOS_PACKAGES.slice(0, Math.min(options.packages, CHAOS_PACKAGES.length));
  const jobs = { generateMs: 100, installMs: 200 };
  const source = await startEmulator({ seed: "demo-dev", faults: faultsFor(options.seed, options), jobs });
  const target = await startEmulator({
    seed: "demo-prod",
    faults: faultsFor(options.seed + 1000, options),
    jobs,
  });
  const dir = mkdtempSync(join(tmpdir(), "egp-chaos-"));
  const problems: string[] = [];
  try {
    const concurrency = options.concurrency ?? 8;
    writeRepo(dir, {
      environments: {
        source: { url: source.url, concurrency },
        target: { url: target.url, packagesFrom: "source", concurrency },
      },
      users: options.users,
      userPrefix: "chaos",
      parameters: options.parameters,
      packages,
    });
    const random = generator(options.seed);
    // Nine steps per package: six to promote it, three to snapshot the target first.
    const expectedSteps = options.users + options.parameters + packages.length * 9;
    // Killed somewhere between 20% and 80% of the way; the session expiry comes before it.
    const killAt = Math.max(2, Math.floor(expectedSteps * (0.2 + 0.6 * random())));
    const expireAt = Math.max(1, Math.floor(killAt / 2));
    const env = { [BENCH_PASSWORD_VARIABLE]: PASSWORD };
    const apply = ["apply", "--env", "target", "--yes", "--dir", dir];
    const interrupt = options.interrupt ?? "SIGKILL";

    let done = 0;
    const first = await runEgp(apply, {
      env,
      signal: interrupt,
      killWhen: (line) => {
        if (!/: done in \d+ ms$/.test(line)) return false;
        done += 1;
        if (done === expireAt) target.faults.expireSessions();
        return done === killAt;
      },
    });
    const killed = interrupt === "SIGKILL" ? first.signal === "SIGKILL" : first.code === 130;
    log(
      `seed ${options.seed}: first apply ${killed ? `${interrupt} after step ${killAt} of ~${expectedSteps}` : `ended with exit ${first.code} before step ${killAt}`} (${(first.ms / 1000).toFixed(1)} s)`,
    );
    if (!killed) problems.push(`the first apply was not stopped (exit ${first.code}, ${done} steps done)`);
    if (
      interrupt === "SIGINT" &&
      killed &&
      !/egp: EGP_INTERRUPTED Interrupted: \d+ of \d+ steps done/.test(first.stderr)
    )
      problems.push("the interrupted apply did not say what it had done");

    const second = await runEgp(interrupt === "SIGKILL" ? [...apply, "--resume"] : apply, { env });
    log(`seed ${options.seed}: second apply exit ${second.code} (${(second.ms / 1000).toFixed(1)} s)`);
    if (second.code !== 0) {
      const verification = second.stdout.split("\nVerification: ")[1];
      if (verification) log(`seed ${options.seed}: the re-run's verification plan:\n${verification}`);
      const failures = second.stdout.split("\n").filter((l) => l.includes("FAILED"));
      problems.push(
        `the re-run exited ${second.code}: ${[...failures.slice(0, 3), second.stderr.trim()].filter(Boolean).join(" | ")}`,
      );
    }
    // Retries are the executor's business: a run that converges through faults writes no warning.
    if (second.code === 0 && second.stderr.trim() !== "")
      problems.push(`the re-run converged but wrote to stderr: ${second.stderr.trim().split("\n")[0]}`);
    if (interrupt === "SIGKILL" && killed && !/Resuming plan [0-9a-f]{16}/.test(second.stdout))
      problems.push("apply --resume did not resume the killed plan");
    if (interrupt === "SIGINT" && killed && !/superseded by plan [0-9a-f]{16}/.test(second.stdout))
      problems.push("the re-run did not plan afresh and supersede the interrupted plan");

    const injected: Record<string, number> = {};
    addCounts(injected, source.faults.stats.byKind);
    addCounts(injected, target.faults.stats.byKind);
    source.faults.clear();
    target.faults.clear();

    const plan = await runEgp(["plan", "--env", "target", "--detailed-exitcode", "--dir", dir], { env });
    const finalPlanEmpty = plan.code === 0;
    if (!finalPlanEmpty) problems.push(`the final plan is not empty (exit ${plan.code})`);

    const missing = missingObjects(target, options);
    problems.push(...missing);
    const duplicates = duplicatesOf(source, target);
    const duplicateCount = Object.values(duplicates).reduce((a, b) => a + b, 0);
    return {
      seed: options.seed,
      converged: second.code === 0 && finalPlanEmpty && missing.length === 0,
      duplicates,
      duplicateCount,
      stepRetries: retryLines(first.stdout) + retryLines(second.stdout),
      injected,
      interrupt,
      killedAfterStep: killed ? killAt : null,
      expectedSteps,
      finalPlanEmpty,
      runs: [summary(first), summary(second), summary(plan)],
      problems,
    };
  } finally {
    await Promise.all([source.close(), target.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The manifests' users and parameters must all be on the target (an empty plan says so too). */
function missingObjects(target: Emulator, options: ChaosOptions): string[] {
  const users = target.store.allUsers().filter((u) => /^chaos\d{4}$/i.test(u.user.UserName)).length;
  const parameters = target.store
    .allSecurityParameters()
    .filter((p) => /^Bench Parameter \d{3}$/.test(p.Name)).length;
  const problems: string[] = [];
  if (users !== options.users) problems.push(`${users} of ${options.users} users on the target`);
  if (parameters !== options.parameters)
    problems.push(`${parameters} of ${options.parameters} parameters on the target`);
  return problems;
}
