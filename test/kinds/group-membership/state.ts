import { hash } from "../../../src/state/digest.ts";
import { earlyRead, liveKind } from "../../../src/state/kinds/kind.ts";
import { usersEarly } from "../../../src/state/kinds/user.ts";

/** The groups the GroupMembership documents name, with their members, and every user's id by name. */
export interface LiveGroupMemberships {
  /** By lower-case group name; a named group the instance lacks is absent. */
  groups: Record<string, { id: number; name: string; memberIds: number[] }>;
  /** Lower-case user name → id. */
  userIds: Record<string, number>;
}

declare module "../../../src/state/kinds/index.ts" {
  interface RegisteredLiveParts {
    groupMemberships: { groupMemberships: LiveGroupMemberships };
  }
}

export const groupMembershipLive = liveKind({
  part: "groupMemberships",
  label: "group memberships",
  async read(context): Promise<{ groupMemberships: LiveGroupMemberships }> {
    const { client, desired, all } = context;
    const wanted = new Set((desired.groupMemberships ?? []).map((doc) => doc.group.toLowerCase()));
    if (wanted.size === 0 && !all) return { groupMemberships: { groups: {}, userIds: {} } };
    const [groups, users] = await Promise.all([
      client.groups.list(),
      earlyRead(context, "users", usersEarly),
    ]);
    const named = groups.filter((group) => all || wanted.has(group.Name.toLowerCase()));
    const members = await Promise.all(named.map((group) => client.users.memberIds(group.Id)));
    return {
      groupMemberships: {
        groups: Object.fromEntries(
          named.map((group, index) => [
            group.Name.toLowerCase(),
            { id: group.Id, name: group.Name, memberIds: [...(members[index] ?? [])].sort((a, b) => a - b) },
          ]),
        ),
        userIds: Object.fromEntries(users.map((user) => [user.UserName.toLowerCase(), user.Id])),
      },
    };
  },
  digest: (state) => hash(state.groupMemberships.groups),
});
