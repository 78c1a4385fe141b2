import type { KindExporter } from "../../../src/export/index.ts";
import { liveOf } from "../../../src/state/index.ts";
import { EMPTY, groupMembershipLive } from "./state.ts";

export const groupMembershipExporter: KindExporter = {
  kind: "GroupMembership",
  file: "group-memberships.yaml",
  noun: "group memberships",
  key: "group",
  export({ live }) {
    const memberships = liveOf(groupMembershipLive, live).groupMemberships ?? EMPTY;
    const names = new Map(Object.entries(memberships.userIds).map(([name, id]) => [id, name]));
    const documents = Object.values(memberships.groups)
      .filter((group) => group.memberIds.length > 0)
      .map((group) => ({
        kind: "GroupMembership",
        group: group.name,
        members: group.memberIds.map((id) => names.get(id) ?? String(id)),
      }));
    return { documents, warnings: [] };
  },
};
