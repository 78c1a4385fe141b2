// Plans and applies one environment through egp's public API, with the plugin's kind registered:
// node apply.mjs <repository> <state folder>. Prints one line of JSON.
import "./group-member.mjs";
import { applyPlan, httpConnections, planEnvironment } from "egp";

const [dir, stateDir] = process.argv.slice(2);
const env = "prod";
const connections = httpConnections();
const replan = (options) => planEnvironment({ dir, env, options, open: connections.open });
try {
  const before = await replan({});
  const outcome = await applyPlan({ env, stateDir, replan, open: connections.open });
  const after = await replan({});
  console.log(
    JSON.stringify({
      planned: before.plan.changes.map((change) => [change.kind, change.key, change.action]),
      ops: before.plan.steps.map((step) => step.op),
      result: outcome.result,
      converged: outcome.converged,
      after: after.plan.changes.length,
    }),
  );
} finally {
  await connections.close();
}
