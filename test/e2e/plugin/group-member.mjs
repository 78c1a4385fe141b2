// A kind that lives outside egp, as a plugin package would ship it: `GroupMember` says that one
// user is a member of one group (added by its document; removed, when no document names it, by a
// PrunePolicy that says `groupMembers: remove`). It imports egp as its users install it, and is one
// value: a caller lists it with egp's own kinds (`createKinds([...builtInKinds, groupMemberKind])`).
import {
  defineKind,
  documentsOf,
  hash,
  inputOf,
  liveKind,
  liveOf,
  makeStep,
  prunePass,
  scoping,
  sourceOf,
} from "egp";
import { z } from "zod";

const KIND = "GroupMember";

// The kind's name in plans, its ops with their inputs' schemas (planner, plan file and ops share
// them), and the action whose changes run each (a saved plan is checked against them).
const steps = {
  kind: KIND,
  ops: {
    "groupMember.add": z.object({ groupId: z.number().int(), userId: z.number().int() }),
    "groupMember.remove": z.object({ groupId: z.number().int(), userId: z.number().int() }),
  },
  actions: { update: ["groupMember.add"], delete: ["groupMember.remove"] },
};

// manifest: the document, validated at file:line:col, what it means for one environment, and the
// PrunePolicy's choice for memberships no document names.
const document = defineKind({
  kind: KIND,
  plural: "groupMembers",
  schema: z
    .object({ kind: z.literal(KIND), ...scoping, group: z.string().min(1), user: z.string().min(1) })
    .strict(),
  rules: [],
  key: { field: "user", of: (member) => `${member.group}/${member.user}`.toLowerCase() },
  prune: { values: ["ignore", "remove"], description: "Memberships no document names: ignore, or remove." },
  normalize: (doc, _environment, report) => ({
    kind: KIND,
    group: doc.group,
    user: doc.user,
    source: sourceOf(report, "user"),
  }),
});

const pruning = (desired) => desired.prune.groupMembers === "remove";

// state: what the plan needs to read, and its digest (a saved plan is refused once it changed).
const live = liveKind({
  part: "groupMembers",
  label: "group members",
  async read({ client, desired, all }) {
    const wanted = documentsOf(document, desired);
    const every = all || pruning(desired);
    if (wanted.length === 0 && !every) return { groupMembers: { groups: {}, users: {} } };
    const [groups, users] = await Promise.all([client.groups.list(), client.users.list()]);
    const named = groups.filter((group) => every || wanted.some((doc) => doc.group === group.Name));
    const members = await Promise.all(named.map((group) => client.users.memberIds(group.Id)));
    return {
      groupMembers: {
        groups: Object.fromEntries(
          named.map((group, i) => [group.Name, { id: group.Id, memberIds: [...(members[i] ?? [])].sort() }]),
        ),
        users: Object.fromEntries(users.map((user) => [user.UserName.toLowerCase(), user.Id])),
      },
    };
  },
  digest: (state) => hash(state.groupMembers),
});

function change(key, action, source) {
  const [before, after] = action === "delete" ? [true, false] : [false, true];
  const fields = [{ field: "member", before, after, verifiable: true }];
  return {
    id: `${KIND}/${key}`,
    kind: KIND,
    key,
    action,
    fields,
    notes: [],
    destructive: action === "delete",
    source,
  };
}

// The memberships no document names: removed when the PrunePolicy says so, minus its exclude.
function prune(desired, groups, users, environment, result) {
  const names = new Map(Object.entries(users).map(([name, id]) => [id, name]));
  const memberships = Object.entries(groups).flatMap(([group, { id, memberIds }]) =>
    memberIds.map((userId) => ({
      group,
      groupId: id,
      userId,
      name: `${group}/${names.get(userId) ?? userId}`,
    })),
  );
  result.excluded = prunePass(
    {
      kind: KIND,
      live: memberships,
      keyOf: (member) => member.name.toLowerCase(),
      nameOf: (member) => member.name,
      present: documentsOf(document, desired).map((doc) => `${doc.group}/${doc.user}`.toLowerCase()),
      absent: [],
      exclude: desired.prune.exclude.groupMembers ?? [],
    },
    {
      absent: () => undefined,
      unmanaged(member) {
        if (!pruning(desired)) return result.unmanaged.push({ kind: KIND, key: member.name });
        const removed = change(member.name, "delete");
        result.changes.push(removed);
        const input = { groupId: member.groupId, userId: member.userId };
        result.steps.push(makeStep(removed, "groupMember.remove", environment, input));
      },
    },
  );
}

// plan: the steps, pure.
const planner = {
  kind: KIND,
  order: 5,
  unverifiable: [],
  plan({ desired, live: state }) {
    const { groups, users } = liveOf(live, state).groupMembers ?? { groups: {}, users: {} };
    const result = { changes: [], steps: [], unmanaged: [] };
    for (const doc of documentsOf(document, desired)) {
      const group = groups[doc.group];
      const userId = users[doc.user.toLowerCase()];
      if (!group || userId === undefined || group.memberIds.includes(userId)) continue;
      const added = change(`${doc.group}/${doc.user}`, "update", doc.source);
      result.changes.push(added);
      result.steps.push(makeStep(added, "groupMember.add", state.environment, { groupId: group.id, userId }));
    }
    prune(desired, groups, users, state.environment, result);
    return result;
  },
};

// apply: one handler per op, reading its input through the op's schema.
const membership = (isAdd) => async (context) => {
  const op = isAdd ? "groupMember.add" : "groupMember.remove";
  const { groupId, userId } = inputOf(context, op, steps.ops[op]);
  await context.client.users.updateGroupMembership({ UserId: userId, GroupId: groupId, IsAdd: isAdd });
  return {};
};

// export: the memberships the instance has, one document each.
const exporter = {
  kind: KIND,
  file: "group-members.yaml",
  key: "user",
  noun: "group members",
  export({ live: state }) {
    const { groups, users } = liveOf(live, state).groupMembers ?? { groups: {}, users: {} };
    const names = new Map(Object.entries(users).map(([name, id]) => [id, name]));
    const documents = Object.entries(groups).flatMap(([group, { memberIds }]) =>
      memberIds.map((id) => ({ kind: KIND, group, user: names.get(id) ?? String(id) })),
    );
    return { documents, warnings: [] };
  },
};

/** The kind, one value: what `createKinds` takes. */
export const groupMemberKind = {
  name: KIND,
  document,
  live,
  steps,
  planner,
  ops: { "groupMember.add": membership(true), "groupMember.remove": membership(false) },
  exporter,
};
