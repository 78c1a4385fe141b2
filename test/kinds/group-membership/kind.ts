import type { Kind } from "../../../src/compose/index.ts";
import { groupMembershipExporter } from "./export.ts";
import { groupMembershipDocument } from "./manifest.ts";
import { groupMembershipOps } from "./ops.ts";
import { groupMembershipPlanner } from "./plan.ts";
import { groupMembershipLive } from "./state.ts";
import { groupMembershipSteps } from "./steps.ts";

/** The kind, one value: its part in each stage, each in its own file. */
export const groupMembershipKind: Kind = {
  name: "GroupMembership",
  document: groupMembershipDocument,
  live: groupMembershipLive,
  steps: groupMembershipSteps,
  planner: groupMembershipPlanner,
  ops: groupMembershipOps,
  exporter: groupMembershipExporter,
};
