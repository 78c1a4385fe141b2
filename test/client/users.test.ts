import { describe, expect, it } from "vitest";
import {
  AccountStatus,
  ContactType,
  createClient,
  InvalidArgumentError,
  NotFoundError,
  ValidationError,
} from "../../src/index.ts";
import { optionsFor, useClientEmulator } from "./helpers/client.ts";

/* Every user operation of the seed, against the emulator over HTTP. */

describe("users", () => {
  const { emulator, client } = useClientEmulator({ seed: "demo-dev" });
  const store = () => emulator().store;
  const idOf = (userName: string) => store().userByName(userName)?.user.Id as number;

  it("list: every user, typed, with unknown fields kept", async () => {
    const users = await client().users.list();
    expect(users.length).toBe(store().allUsers().length);
    const admin = users.find((u) => u.UserName === "sysadmin");
    expect(admin).toMatchObject({ Id: 1, AccountStatus: AccountStatus.Active, FirstName: "System" });
  });

  it("list: OData filter, order, top and skip travel as query options", async () => {
    const c = client();
    const active = await c.users.list({
      filter: { field: "AccountStatus", op: "eq", value: AccountStatus.Inactive },
      orderBy: { field: "UserName", direction: "desc" },
    });
    expect(active.map((u) => u.UserName)).toEqual(["fkim"]);
    const page = await c.users.list({ orderBy: "UserName", top: 2, skip: 1 });
    const names = store()
      .allUsers()
      .map((r) => r.user.UserName)
      .sort();
    expect(page.map((u) => u.UserName)).toEqual(names.slice(1, 3));
  });

  it("listFields: $select returns only the selected fields", async () => {
    const users = await client().users.listFields(["UserName", "AccountStatus"], {
      filter: { field: "UserName", op: "eq", value: "anguyen" },
    });
    expect(users).toEqual([{ UserName: "anguyen", AccountStatus: 1 }]);
  });

  it("get by id", async () => {
    await expect(client().users.get(idOf("anguyen"))).resolves.toMatchObject({
      UserName: "anguyen",
      Title: "Risk Manager",
    });
  });

  it("get of an unknown id is a NotFoundError; a bad id is refused before any request", async () => {
    const c = client();
    await expect(c.users.get(987654)).rejects.toThrow(NotFoundError);
    const before = c.stats().requests;
    await expect(c.users.get(Number.NaN)).rejects.toThrow(InvalidArgumentError);
    await expect(c.users.get(1.5)).rejects.toThrow(/userId must be a whole number/);
    expect(c.stats().requests).toBe(before);
  });

  it("users by group", async () => {
    const riskOwners = store().data.groups;
    const groupId = Number(Object.values(riskOwners).find((g) => g.Name === "Risk Owners")?.Id);
    const members = await client().users.listByGroup(groupId);
    expect(members.map((u) => u.UserName).sort()).toEqual(
      store()
        .allUsers()
        .filter((r) => r.groups.includes(groupId))
        .map((r) => r.user.UserName)
        .sort(),
    );
  });

  it("member ids of a group: the same members as users by group", async () => {
    const groupId = Number(Object.values(store().data.groups).find((g) => g.Name === "Risk Owners")?.Id);
    const expected = store()
      .allUsers()
      .filter((r) => r.groups.includes(groupId))
      .map((r) => r.user.Id)
      .sort((a, b) => a - b);
    expect(expected.length).toBeGreaterThan(0);
    const ids = await client().users.memberIds(groupId);
    expect([...ids].sort((a, b) => a - b)).toEqual(expected);
    await expect(client().users.memberIds(987654)).rejects.toThrow(NotFoundError);
  });

  it("all user contacts: one entry per user", async () => {
    const all = await client().users.listContacts();
    const alice = all.find((entry) => entry.UserId === idOf("anguyen"));
    expect(alice?.Contacts).toHaveLength(3);
    expect(alice?.Contacts[0]).toMatchObject({
      ContactType: ContactType.Email,
      Value: "anguyen@example.com",
    });
  });

  it("contacts of one user, one envelope per contact", async () => {
    const contacts = await client().users.contactsOf(idOf("anguyen"));
    expect(contacts.map((c) => c.Value)).toEqual(["anguyen@example.com", "+1 555 0100", "+1 555 0101"]);
  });

  it("tasks, with the OData query in the body's Value", async () => {
    const c = client();
    const all = await c.users.tasks();
    expect(all.length).toBeGreaterThanOrEqual(2);
    const first = await c.users.tasks({ filter: { field: "IsComplete", op: "eq", value: false }, top: 1 });
    expect(first).toHaveLength(1);
    expect(first[0]?.IsComplete).toBe(false);
  });

  it("create, then update with the whole user, then delete", async () => {
    const c = client();
    const id = await c.users.create({
      User: { FirstName: "Ines", LastName: "Ortega", UserName: "iortega", AccountStatus: 1 },
      Password: "Cr3ate#Secret9",
    });
    const created = await c.users.get(id);
    expect(created).toMatchObject({ UserName: "iortega", FirstName: "Ines" });

    const { UpdateInformation: _info, LastLoginDate: _last, ...live } = created;
    await expect(c.users.update({ User: { ...live, Title: "Analyst" } })).resolves.toBe(id);
    expect(store().user(id)?.user.Title).toBe("Analyst");

    await expect(c.users.remove(id)).resolves.toBe(id);
    expect(store().user(id)).toBeUndefined();
  });

  it("create with a missing required field is a ValidationError with the messages", async () => {
    const failure = client().users.create({
      User: { FirstName: "NoLast" } as never,
      Password: "Cr3ate#Secret9",
    });
    await expect(failure).rejects.toThrow(ValidationError);
    await expect(failure).rejects.toMatchObject({
      code: "EGP_VALIDATION",
      status: 400,
      validationMessages: [expect.objectContaining({ Description: expect.stringMatching(/LastName/) })],
    });
  });

  it("deactivate and activate", async () => {
    const c = client();
    const id = idOf("bokafor");
    await expect(c.users.deactivate(id)).resolves.toBe(id);
    expect(store().user(id)?.user.AccountStatus).toBe(AccountStatus.Inactive);
    await expect(c.users.activate(id)).resolves.toBe(id);
    expect(store().user(id)?.user.AccountStatus).toBe(AccountStatus.Active);
  });

  it("role membership: add and remove", async () => {
    const c = client();
    const id = idOf("bokafor");
    await expect(c.users.updateRoleMembership({ UserId: id, RoleId: 1, IsAdd: true })).resolves.toBe(1);
    expect(store().user(id)?.roles).toContain(1);
    await c.users.updateRoleMembership({ UserId: id, RoleId: 1, IsAdd: false });
    expect(store().user(id)?.roles).not.toContain(1);
  });

  it("group membership: add and remove", async () => {
    const c = client();
    const id = idOf("bokafor");
    await expect(c.users.updateGroupMembership({ UserId: id, GroupId: 2, IsAdd: true })).resolves.toBe(2);
    expect(store().user(id)?.groups).toContain(2);
    await c.users.updateGroupMembership({ UserId: id, GroupId: 2, IsAdd: false });
    expect(store().user(id)?.groups).not.toContain(2);
  });

  it("change password: the user logs in with the new one", async () => {
    const id = idOf("cmendes");
    await expect(
      client().users.changePassword({ UserId: id, NewPassword: "Changed#Pass2026" }),
    ).resolves.toBeUndefined();
    const asUser = createClient(
      optionsFor(emulator().url, { username: "cmendes", password: "Changed#Pass2026" }),
    );
    await expect(asUser.metadata.version()).resolves.toMatchObject({ Version: "6.14.0" });
    await asUser.close();
  });
});
