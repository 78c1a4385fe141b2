// Plans one environment through egp's public API with the plugin's kind in the kinds value, saves
// the plan to a file and applies it from that file, as `egp plan --out` and `egp apply FILE` do;
// exports the environment; then prunes with a PrunePolicy made from the same kinds value:
// node apply.mjs <repository> <state folder>. Prints one line of JSON.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  applyPlan,
  builtInKinds,
  createKinds,
  exportManifests,
  httpConnections,
  planEnvironment,
  readLiveState,
  readPlanFile,
  writePlanFile,
} from "egp";
import { groupMemberKind } from "./group-member.mjs";

const [dir, stateDir] = process.argv.slice(2);
const env = "prod";
const kinds = createKinds([...builtInKinds, groupMemberKind]);
const connections = httpConnections();
const replan = (options) => planEnvironment({ dir, env, options, open: connections.open, kinds });

/** A plan saved to a file, read back and applied from it; then a fresh plan's number of changes. */
async function applySaved(name) {
  const file = join(dir, name);
  await writeFile(file, writePlanFile((await replan({})).plan));
  const text = await readFile(file, "utf8");
  const saved = readPlanFile(text, file, kinds.steps);
  // A process with egp's own kinds only refuses it by name.
  const refused = (() => {
    try {
      readPlanFile(text, file);
      return "read";
    } catch (error) {
      return error.code;
    }
  })();
  const outcome = await applyPlan({
    env,
    stateDir,
    replan,
    open: connections.open,
    saved,
    savedFile: file,
    kinds,
  });
  return {
    planned: saved.changes.map((change) => [change.kind, change.key, change.action]),
    ops: [...new Set(saved.steps.map((step) => step.op))],
    withoutKind: refused,
    result: outcome.result,
    converged: outcome.converged,
    after: (await replan({})).plan.changes.length,
  };
}

try {
  const applied = await applySaved("plan.json");

  const { desired } = await replan({});
  const live = await readLiveState(await connections.open(desired.environment), desired, {
    scope: "all",
    kinds: kinds.live,
  });
  const { files } = exportManifests({ environment: desired.environment, live }, kinds.exporters);
  const exported = files.find((file) => file.kind === "GroupMember");

  const policy =
    "kind: PrunePolicy\ngroupMembers: remove\nexclude: { groupMembers: [Everyone/*, Administrators/*, Auditors/*] }\n";
  await writeFile(join(dir, "manifests", "prune.yaml"), policy);
  const pruned = await applySaved("prune.json");

  console.log(
    JSON.stringify({
      ...applied,
      exported: exported?.documents.filter((doc) => doc.group === "Auditors").map((doc) => doc.user),
      pruned,
    }),
  );
} finally {
  await connections.close();
}
