import type { OpRegistry } from "../../../src/apply/index.ts";
import { inputOf } from "../../../src/apply/ops/types.ts";
import { groupMembershipSteps } from "./steps.ts";

const { ops } = groupMembershipSteps;

export const groupMembershipOps: OpRegistry = {
  "groupMembership.add": async (context) => {
    const { groupId, users } = inputOf(context, "groupMembership.add", ops["groupMembership.add"]);
    for (const user of users) {
      await context.client.users.updateGroupMembership({ UserId: user.id, GroupId: groupId, IsAdd: true });
    }
    return { added: users.length };
  },
  "groupMembership.clear": async (context) => {
    const { groupId, users } = inputOf(context, "groupMembership.clear", ops["groupMembership.clear"]);
    for (const user of users) {
      await context.client.users.updateGroupMembership({ UserId: user.id, GroupId: groupId, IsAdd: false });
    }
    return { removed: users.length };
  },
};
