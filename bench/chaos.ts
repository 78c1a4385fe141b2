import { type ChaosResult, runChaosSeed } from "./lib/chaos-run.ts";
import { machine } from "./lib/proc.ts";
import { finish } from "./lib/verdict.ts";

/*
 * §5 chaos run: for each seed, `egp apply` of N users, N security parameters and up to 3 packages
 * against two emulators injecting 20% transient faults (500/502/503, 429 with Retry-After),
 * connection resets and one forced session expiry; SIGKILL (odd seeds, then `apply --resume`) or
 * SIGINT (even seeds, then a plain `apply`, which plans afresh) at a step chosen from the seed; then
 * the re-run under the same faults; then a plan with faults off, and a search for duplicates.
 * See bench/lib/chaos-run.ts for the details.
 *
 *   bash scripts/node24 node bench/chaos.ts [--seeds 5] [--users 500] [--parameters 20] [--packages 3]
 *                                          [--first-seed 1] [--concurrency 8]
 *
 * Target (DESIGN §5): every seed converges (the re-run exits 0 and verifies, the final plan is
 * empty) with 0 duplicates. Bounded: 4 minutes per seed.
 */

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  const value = at >= 0 ? Number(args[at + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} needs a whole number`);
  return value;
};
const SEEDS = option("seeds", 5);
const FIRST_SEED = option("first-seed", 1);
const USERS = option("users", 500);
const PARAMETERS = option("parameters", 20);
const PACKAGES = option("packages", 3);
const CONCURRENCY = option("concurrency", 8);
const DEADLINE_MS = SEEDS * 4 * 60_000;

function line(result: ChaosResult): string {
  const faults = Object.entries(result.injected)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${kind}×${n}`)
    .join(" ");
  const d = result.duplicates;
  return [
    `seed ${result.seed}: converged ${result.converged ? "yes" : "no"}`,
    `duplicates ${result.duplicateCount} (users ${d.users}, parameters ${d.parameters}, packages ${d.packages}, applications ${d.applications})`,
    `retries: ${result.stepRetries} step retries, faults injected ${faults || "none"}`,
    `${result.interrupt} after step ${result.killedAfterStep ?? "-"} of ~${result.expectedSteps}`,
    `final plan ${result.finalPlanEmpty ? "empty" : "NOT EMPTY"}`,
    `runs ${result.runs.map((r) => `${r.seconds} s (${r.signal ?? `exit ${r.code}`})`).join(", ")}`,
  ].join("; ");
}

await finish(DEADLINE_MS, async () => {
  console.log(machine());
  console.log(
    `chaos: ${SEEDS} seeds from ${FIRST_SEED}, ${USERS} users, ${PARAMETERS} parameters, ${PACKAGES} packages, concurrency ${CONCURRENCY}; bound ${DEADLINE_MS / 60_000} min`,
  );
  const results: ChaosResult[] = [];
  for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
    const result = await runChaosSeed({
      seed,
      users: USERS,
      parameters: PARAMETERS,
      packages: PACKAGES,
      concurrency: CONCURRENCY,
      interrupt: seed % 2 === 1 ? "SIGKILL" : "SIGINT",
      log: (text) => console.log(`  ${text}`),
    });
    results.push(result);
    console.log(line(result));
    for (const problem of result.problems) console.log(`  problem: ${problem}`);
  }
  const converged = results.filter((r) => r.converged).length;
  const duplicates = results.reduce((sum, r) => sum + r.duplicateCount, 0);
  console.log(`converged ${converged}/${SEEDS}, duplicates ${duplicates}`);
  console.log(`target: ${SEEDS}/${SEEDS} converged and 0 duplicates`);
  const pass = converged === SEEDS && duplicates === 0;
  return pass ? { pass } : { pass, reason: `${converged}/${SEEDS} converged, ${duplicates} duplicates` };
});
