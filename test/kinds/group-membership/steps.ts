import { z } from "zod";

/**
 * The kind's name in plans, its one op with its input's schema (planner, plan file and op share it),
 * and the action that runs it (a saved plan is checked against it).
 */
export const groupMembershipSteps = {
  kind: "GroupMembership",
  ops: {
    "groupMembership.add": z.object({
      group: z.string(),
      groupId: z.number().int().positive(),
      users: z.array(z.object({ name: z.string(), id: z.number().int().positive() })).min(1),
    }),
  },
  /** A membership that lacks members is updated by adding them; nothing else is planned. */
  actions: { update: ["groupMembership.add"] },
} as const;

type GroupMembershipOps = typeof groupMembershipSteps.ops;

declare module "../../../src/plan/kinds/steps.ts" {
  interface RegisteredKindSteps {
    GroupMembership: typeof groupMembershipSteps;
  }
  interface RegisteredStepInputs extends GroupMembershipOps {}
}
