import { describe, expect, it } from "vitest";
import { desired, desiredUser } from "../../../test/builders/plan.ts";
import { wireUser } from "../../../test/builders/wire.ts";
import type { PlatformClient } from "../../client/client.ts";
import type { Contact, User } from "../../wire/index.ts";
import { userLive } from "./user.ts";

/*
 * The users part joins three answers: the users, every user's contacts and each mapped group's
 * members. Instances send them in id order, which the join walks side by side; in any other order
 * it matches them by id. Both give the same users, contacts and groups.
 */

const email = (id: number): Contact => ({
  Id: id * 10,
  ContactType: 7,
  ContactSubType: 2,
  IsDefault: true,
  Value: `u${id}@example.com`,
});

const users = [3, 5, 9, 12].map((Id) => wireUser({ Id, UserName: `u${Id}` }) as User);
const contacts = users.map((user) => ({ UserId: user.Id, Contacts: user.Id === 9 ? [] : [email(user.Id)] }));
// Everyone (1) holds every user and one the users read does not have; Administrators (2) two of them.
const members: Record<number, number[]> = { 1: [3, 5, 9, 12, 40], 2: [5, 12], 42: [12] };

const expected = [
  { id: 3, contacts: [email(3)], groups: [1] },
  { id: 5, contacts: [email(5)], groups: [1, 2] },
  { id: 9, contacts: [], groups: [1] },
  { id: 12, contacts: [email(12)], groups: [1, 2, 42] },
];

function clientOf(answers: {
  users: User[];
  contacts: typeof contacts;
  members: Record<number, number[]>;
}): PlatformClient {
  return {
    users: {
      list: async () => answers.users,
      listContacts: async () => answers.contacts,
      memberIds: async (id: number) => answers.members[id] ?? [],
    },
  } as unknown as PlatformClient;
}

async function read(client: PlatformClient) {
  const managed = desired({
    users: [desiredUser("u3", { contacts: [], groups: [{ name: "Everyone", id: 1 }] })],
  });
  const part = await userLive.read({ client, desired: managed, options: {}, early: new Map(), all: false });
  return part.users.map((u) => ({ id: u.user.Id, contacts: u.contacts, groups: u.groups }));
}

describe("the users part's join of users, contacts and group members", () => {
  it("joins answers in id order", async () => {
    expect(await read(clientOf({ users, contacts, members }))).toEqual(expected);
  });

  it("joins answers in any other order by id, with the same result", async () => {
    const shuffled = {
      users: [users[2], users[0], users[3], users[1]] as User[],
      contacts: [contacts[3], contacts[1], contacts[0], contacts[2]] as typeof contacts,
      members: { 1: [40, 12, 9, 5, 3], 2: [12, 5], 42: [12] },
    };
    expect(await read(clientOf(shuffled))).toEqual(expected);
    // Only the members out of order, or a contacts entry missing: matched by id too.
    expect(await read(clientOf({ users, contacts, members: { ...members, 2: [12, 5] } }))).toEqual(expected);
    const fewer = contacts.filter((entry) => entry.UserId !== 9);
    expect(await read(clientOf({ users, contacts: fewer, members }))).toEqual(expected);
  });
});
