// Plans one environment through egp's public API with the plugin's kind registered, saves the plan
// to a file and applies it from that file through the governed apply, as `egp plan --out` and
// `egp apply FILE` do:
// node apply.mjs <repository> <state folder>. Prints one line of JSON.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import "./group-member.mjs";
import { apply, httpConnections, planEnvironment, readPlanFile, writePlanFile } from "egp";

const [dir, stateDir] = process.argv.slice(2);
const env = "prod";
const connections = httpConnections();
const replan = (options) => planEnvironment({ dir, env, options, open: connections.open });
try {
  const before = await replan({});
  const file = join(dir, "plan.json");
  await writeFile(file, writePlanFile(before.plan));
  const saved = readPlanFile(await readFile(file, "utf8"), file);
  const outcome = await apply({ dir, env, stateDir, open: connections.open, saved, savedFile: file });
  const after = await replan({});
  console.log(
    JSON.stringify({
      planned: saved.changes.map((change) => [change.kind, change.key, change.action]),
      ops: saved.steps.map((step) => step.op),
      result: outcome.result,
      converged: outcome.converged,
      after: after.plan.changes.length,
    }),
  );
} finally {
  await connections.close();
}
