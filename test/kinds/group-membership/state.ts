import { documentsOf } from "../../../src/manifest/kinds/kind.ts";
import { hash } from "../../../src/state/digest.ts";
import { earlyRead, liveKind } from "../../../src/state/kinds/kind.ts";
import { usersEarly } from "../../../src/state/kinds/user.ts";
import { groupMembershipDocument } from "./manifest.ts";

/** The groups the plan needs, with their members, and every user's id by name. */
export interface LiveGroupMemberships {
  /** By lower-case group name; a named group the instance lacks is absent. */
  groups: Record<string, { id: number; name: string; memberIds: number[] }>;
  /** Lower-case user name → id. */
  userIds: Record<string, number>;
}

export const EMPTY: LiveGroupMemberships = { groups: {}, userIds: {} };

/** The PrunePolicy's choice for group memberships: its field under the kind's plural. */
export function pruneChoiceOf(prune: Readonly<Record<string, unknown>>): string {
  return String(prune[groupMembershipDocument.plural] ?? "ignore");
}

export const groupMembershipLive = liveKind({
  part: "groupMemberships",
  label: "group memberships",
  async read(context): Promise<{ groupMemberships: LiveGroupMemberships }> {
    const { client, desired, all } = context;
    const documents = documentsOf(groupMembershipDocument, desired);
    const wanted = new Set(documents.map((doc) => doc.group.toLowerCase()));
    // Every group is read when the PrunePolicy may clear the ones no document names.
    const every = all || pruneChoiceOf(desired.prune) !== "ignore";
    if (wanted.size === 0 && !every) return { groupMemberships: EMPTY };
    const [groups, users] = await Promise.all([
      client.groups.list(),
      earlyRead(context, "users", usersEarly),
    ]);
    const named = groups.filter((group) => every || wanted.has(group.Name.toLowerCase()));
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
