import { z } from "zod";

const Users = z.array(z.object({ name: z.string(), id: z.number().int().positive() })).min(1);

/**
 * The kind's name in plans, its ops with their inputs' schemas (planner, plan file and ops share
 * them), and the action that runs each (a saved plan is checked against them).
 */
export const groupMembershipSteps = {
  kind: "GroupMembership",
  ops: {
    "groupMembership.add": z.object({
      group: z.string(),
      groupId: z.number().int().positive(),
      users: Users,
    }),
    "groupMembership.clear": z.object({
      group: z.string(),
      groupId: z.number().int().positive(),
      users: Users,
    }),
  },
  /** A membership that lacks members gains them; a group no document names is cleared when pruned. */
  actions: { update: ["groupMembership.add"], delete: ["groupMembership.clear"] },
} as const;
