import type { OpRegistry } from "../../../src/apply/index.ts";
import { inputOf } from "../../../src/apply/ops/types.ts";

export const groupMembershipOps: OpRegistry = {
  "groupMembership.add": async (context) => {
    const { groupId, users } = inputOf(context, "groupMembership.add");
    for (const user of users) {
      await context.client.users.updateGroupMembership({ UserId: user.id, GroupId: groupId, IsAdd: true });
    }
    return { added: users.length };
  },
};
