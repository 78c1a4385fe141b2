// A kind that lives outside egp, as a plugin package would ship it: `GroupMember` says that one
// user is a member of one group (added, never removed). It imports egp as its users install it.
import {
  defineKind,
  hash,
  inputOf,
  liveKind,
  makeStep,
  registerKind,
  registerKindSteps,
  registerLiveKind,
  registerOps,
  registerPlanner,
  scoping,
  sourceOf,
} from "egp";
import { z } from "zod";

const KIND = "GroupMember";

// The kind's name in plans, its one op with its input's schema (planner, plan file and op share it),
// and the action whose changes run it (a saved plan is checked against it).
const steps = {
  kind: KIND,
  ops: { "groupMember.add": z.object({ groupId: z.number().int(), userId: z.number().int() }) },
  actions: { update: ["groupMember.add"] },
};

// manifest: the document, validated at file:line:col, and what it means for one environment.
registerKind(
  defineKind({
    kind: KIND,
    plural: "groupMembers",
    schema: z
      .object({ kind: z.literal(KIND), ...scoping, group: z.string().min(1), user: z.string().min(1) })
      .strict(),
    rules: [],
    key: { field: "user", of: (member) => `${member.group}/${member.user}`.toLowerCase() },
    normalize: (doc, _environment, report) => ({
      kind: KIND,
      group: doc.group,
      user: doc.user,
      source: sourceOf(report, "user"),
    }),
  }),
);

// state: what the plan needs to read, and its digest (a saved plan is refused once it changed).
registerLiveKind(
  liveKind({
    part: "groupMembers",
    label: "group members",
    async read({ client, desired }) {
      const wanted = desired.groupMembers ?? [];
      if (wanted.length === 0) return { groupMembers: { groups: {}, users: {} } };
      const [groups, users] = await Promise.all([client.groups.list(), client.users.list()]);
      const named = groups.filter((group) => wanted.some((doc) => doc.group === group.Name));
      const members = await Promise.all(named.map((group) => client.users.memberIds(group.Id)));
      return {
        groupMembers: {
          groups: Object.fromEntries(
            named.map((group, i) => [
              group.Name,
              { id: group.Id, memberIds: [...(members[i] ?? [])].sort() },
            ]),
          ),
          users: Object.fromEntries(users.map((user) => [user.UserName.toLowerCase(), user.Id])),
        },
      };
    },
    digest: (state) => hash(state.groupMembers),
  }),
);

// plan: the steps, pure.
registerKindSteps(steps);
registerPlanner({
  kind: KIND,
  order: 5,
  unverifiable: [],
  plan({ desired, live }) {
    const { groups, users } = live.groupMembers ?? { groups: {}, users: {} };
    const result = { changes: [], steps: [], unmanaged: [] };
    for (const doc of desired.groupMembers ?? []) {
      const group = groups[doc.group];
      const userId = users[doc.user.toLowerCase()];
      if (!group || userId === undefined || group.memberIds.includes(userId)) continue;
      const change = {
        id: `${KIND}/${doc.group}/${doc.user}`,
        kind: KIND,
        key: `${doc.group}/${doc.user}`,
        action: "update",
        fields: [{ field: "member", before: false, after: true, verifiable: true }],
        notes: [],
        destructive: false,
        source: doc.source,
      };
      result.changes.push(change);
      result.steps.push(makeStep(change, "groupMember.add", live.environment, { groupId: group.id, userId }));
    }
    return result;
  },
});

// apply: one handler per op, reading its input through the op's schema.
registerOps({
  "groupMember.add": async (context) => {
    const { groupId, userId } = inputOf(context, "groupMember.add");
    await context.client.users.updateGroupMembership({ UserId: userId, GroupId: groupId, IsAdd: true });
    return {};
  },
});
