import { z } from "zod";
import type { SourceLocation } from "../../../src/manifest/index.ts";
import { defineKind, reportRepeats, scoping, sourceOf } from "../../../src/manifest/kinds/kind.ts";

/*
 * A kind that exists only in this test, to prove that a kind is new files plus one entry in a
 * kinds list: `GroupMembership` says that the users it lists are members of one group. It adds
 * members, never removes them, so that it can't fight the User kind over the same memberships; a
 * PrunePolicy may clear the groups no document names.
 */

export interface DesiredGroupMembership {
  kind: "GroupMembership";
  group: string;
  members: readonly string[];
  source: SourceLocation;
}

const GroupMembershipDocument = z
  .object({
    kind: z.literal("GroupMembership"),
    ...scoping,
    group: z.string().min(1).describe("The group, by name, as the instance names it."),
    members: z.array(z.string().min(1)).min(1).describe("User names that must be members of the group."),
  })
  .strict();

export const groupMembershipDocument = defineKind({
  kind: "GroupMembership",
  plural: "groupMemberships",
  schema: GroupMembershipDocument,
  rules: [
    (doc, report) => reportRepeats(doc.members, report, "members", (name) => String(name).toLowerCase()),
  ],
  key: { field: "group", of: (desired: DesiredGroupMembership) => desired.group.toLowerCase() },
  prune: {
    values: ["ignore", "clear"],
    description: "ignore (default): leave the members of groups no document names; clear: remove them.",
  },
  normalize: (doc, _environment, report): DesiredGroupMembership => ({
    kind: "GroupMembership",
    group: doc.group,
    members: doc.members,
    source: sourceOf(report, "group"),
  }),
});
