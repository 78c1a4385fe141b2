import { documentsOf } from "../../../src/manifest/kinds/kind.ts";
import type { Change, KindPlanner, PlanInput, PlanProblem } from "../../../src/plan/index.ts";
import { makeStep } from "../../../src/plan/index.ts";
import { prunePass } from "../../../src/plan/prune.ts";
import { liveOf } from "../../../src/state/index.ts";
import { groupMembershipDocument } from "./manifest.ts";
import { EMPTY, groupMembershipLive, type LiveGroupMemberships, pruneChoiceOf } from "./state.ts";
import { groupMembershipSteps } from "./steps.ts";

const KIND = groupMembershipSteps.kind;
type Group = LiveGroupMemberships["groups"][string];

const membershipsOf = (live: PlanInput["live"]) =>
  liveOf(groupMembershipLive, live).groupMemberships ?? EMPTY;

function change(group: Group, before: string[], after: string[], destructive: boolean): Change {
  const action = destructive ? "delete" : "update";
  const field = { field: "members", before, after, verifiable: true };
  return {
    id: `${KIND}/${group.name}`,
    kind: KIND,
    key: group.name,
    action,
    fields: [field],
    notes: [],
    destructive,
  };
}

/** The groups no document names: cleared of their members when the PrunePolicy says `clear`. */
function prune({ desired, live }: PlanInput, result: ReturnType<KindPlanner["plan"]>): void {
  const memberships = membershipsOf(live);
  const nameOf = new Map(Object.entries(memberships.userIds).map(([name, id]) => [id, name]));
  const names = (group: Group) => group.memberIds.map((id) => nameOf.get(id) ?? `#${id}`);
  const documents = documentsOf(groupMembershipDocument, desired);
  const clear = pruneChoiceOf(desired.prune) === "clear";
  result.excluded = prunePass(
    {
      kind: KIND,
      live: Object.values(memberships.groups).filter((group) => group.memberIds.length > 0),
      keyOf: (group) => group.name.toLowerCase(),
      nameOf: (group) => group.name,
      present: documents.map((doc) => doc.group.toLowerCase()),
      absent: [],
      exclude: desired.prune.exclude[groupMembershipDocument.plural] ?? [],
    },
    {
      absent: () => undefined,
      unmanaged(group) {
        if (!clear) {
          result.unmanaged.push({ kind: KIND, key: group.name });
          return;
        }
        const cleared = change(group, names(group), [], true);
        const users = group.memberIds.map((id) => ({ name: nameOf.get(id) ?? `#${id}`, id }));
        result.changes.push(cleared);
        result.steps.push(
          makeStep(cleared, "groupMembership.clear", live.environment, {
            group: group.name,
            groupId: group.id,
            users,
          }),
        );
      },
    },
  );
}

export const groupMembershipPlanner: KindPlanner = {
  kind: KIND,
  order: 5,
  unverifiable: [],
  refusals({ desired, live }) {
    const memberships = membershipsOf(live);
    const problems: PlanProblem[] = [];
    for (const doc of documentsOf(groupMembershipDocument, desired)) {
      const at = { file: doc.source.file, line: doc.source.line, column: doc.source.column };
      if (!memberships.groups[doc.group.toLowerCase()])
        problems.push({ ...at, path: "group", message: `no group "${doc.group}" on ${live.environment}` });
      for (const name of doc.members) {
        if (memberships.userIds[name.toLowerCase()] === undefined)
          problems.push({ ...at, path: "members", message: `no user "${name}" on ${live.environment}` });
      }
    }
    return problems;
  },
  plan(input) {
    const { desired, live } = input;
    const memberships = membershipsOf(live);
    const result: ReturnType<KindPlanner["plan"]> = { changes: [], steps: [], unmanaged: [] };
    const nameOf = new Map(Object.entries(memberships.userIds).map(([name, id]) => [id, name]));
    for (const doc of documentsOf(groupMembershipDocument, desired)) {
      const group = memberships.groups[doc.group.toLowerCase()];
      if (!group) continue;
      const missing = doc.members
        .map((name) => ({ name, id: memberships.userIds[name.toLowerCase()] }))
        .filter((user): user is { name: string; id: number } => user.id !== undefined)
        .filter((user) => !group.memberIds.includes(user.id));
      if (missing.length === 0) continue;
      const before = group.memberIds.map((id) => nameOf.get(id) ?? `#${id}`);
      const added = {
        ...change(group, before, [...before, ...missing.map((u) => u.name)], false),
        source: doc.source,
      };
      result.changes.push(added);
      result.steps.push(
        makeStep(added, "groupMembership.add", live.environment, {
          group: group.name,
          groupId: group.id,
          users: missing,
        }),
      );
    }
    prune(input, result);
    return result;
  },
};
