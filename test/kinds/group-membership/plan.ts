import type { KindPlanner, PlanProblem } from "../../../src/plan/index.ts";
import { makeStep } from "../../../src/plan/index.ts";
import type { LiveGroupMemberships } from "./state.ts";
import { groupMembershipSteps } from "./steps.ts";

const EMPTY: LiveGroupMemberships = { groups: {}, userIds: {} };

export const groupMembershipPlanner: KindPlanner = {
  kind: groupMembershipSteps.kind,
  order: 5,
  unverifiable: [],
  refusals({ desired, live }) {
    const memberships = live.groupMemberships ?? EMPTY;
    const problems: PlanProblem[] = [];
    for (const doc of desired.groupMemberships ?? []) {
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
  plan({ desired, live }) {
    const memberships = live.groupMemberships ?? EMPTY;
    const result: ReturnType<KindPlanner["plan"]> = { changes: [], steps: [], unmanaged: [] };
    const nameOf = new Map(Object.entries(memberships.userIds).map(([name, id]) => [id, name]));
    for (const doc of desired.groupMemberships ?? []) {
      const group = memberships.groups[doc.group.toLowerCase()];
      if (!group) continue;
      const missing = doc.members
        .map((name) => ({ name, id: memberships.userIds[name.toLowerCase()] }))
        .filter((user): user is { name: string; id: number } => user.id !== undefined)
        .filter((user) => !group.memberIds.includes(user.id));
      if (missing.length === 0) continue;
      const change = {
        id: `${groupMembershipSteps.kind}/${group.name}`,
        kind: groupMembershipSteps.kind,
        key: group.name,
        action: "update" as const,
        fields: [
          {
            field: "members",
            before: group.memberIds.map((id) => nameOf.get(id) ?? `#${id}`),
            after: [
              ...group.memberIds.map((id) => nameOf.get(id) ?? `#${id}`),
              ...missing.map((u) => u.name),
            ],
            verifiable: true,
          },
        ],
        notes: [],
        destructive: false,
        source: doc.source,
      };
      result.changes.push(change);
      result.steps.push(
        makeStep(change, "groupMembership.add", live.environment, {
          group: group.name,
          groupId: group.id,
          users: missing,
        }),
      );
    }
    return result;
  },
};
