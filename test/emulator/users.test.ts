import { describe, expect, it } from "vitest";
import { User } from "../../src/wire/index.ts";
import { type Json, manualClock, type RawResponse, useEmulator } from "../helpers/raw.ts";

/*
 * The users segment over real HTTP, on the demo-dev seed. Dev ids: 1 sysadmin, 2 anguyen,
 * 3 bokafor, 4 cmendes, 5 dpatel, 6 ejohansson, 7 fkim, 8 gmorales, 9 svc_gitops; roles 3 Risk
 * Manager, 4 Auditor; groups 3 Risk Owners, 4 Auditors. Tests that change users make their own.
 */

const USER_KEYS = [
  "AccountStatus",
  "AdditionalNote",
  "Address",
  "BusinessUnit",
  "Company",
  "DefaultHomeDashboardId",
  "DefaultHomeWorkspaceId",
  "Department",
  "DisplayName",
  "DistinguishedName",
  "DomainId",
  "FirstName",
  "ForcePasswordChange",
  "Id",
  "LanguageId",
  "LastLoginDate",
  "LastName",
  "Locale",
  "MiddleName",
  "SecurityId",
  "TimeZoneId",
  "Title",
  "Type",
  "UpdateInformation",
  "UserName",
];

const PASSWORD = "Strong#Pass1";

describe("users segment", () => {
  const clock = manualClock();
  const { raw, emulator } = useEmulator({ seed: "demo-dev", clock: clock.now });
  let serial = 0;
  /** A last name no other test uses, so default user names never collide by accident. */
  const uniqueLast = () => `Tester${String.fromCharCode(97 + (serial % 26))}${++serial}`;

  const admin = () => raw().token();
  const post = (path: string, token: string, body?: unknown) =>
    raw().call(path, { method: "POST", token, body });
  const put = (path: string, token: string, body: unknown) =>
    raw().call(path, { method: "PUT", token, body });

  function expectFailure(response: RawResponse<Json>, status: number, key?: string): void {
    expect(response.status).toBe(status);
    expect(response.body.IsSuccessful).toBe(false);
    expect(response.body.ValidationMessages.length).toBeGreaterThan(0);
    if (key) expect(response.body.ValidationMessages.map((m: Json) => m.MessageKey)).toContain(key);
  }

  async function createUser(user: Json, extra: Json = {}, password = PASSWORD): Promise<number> {
    const response = await post("/core/system/user", await admin(), {
      User: user,
      Password: password,
      ...extra,
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.IsSuccessful).toBe(true);
    return response.body.RequestedObject.Id;
  }

  async function getUser(id: number): Promise<Json> {
    const response = await raw().read(`/core/system/user/${id}`, await admin());
    expect(response.status).toBe(200);
    return response.body.RequestedObject;
  }

  /** The live user as an update body's `User`, with some fields changed. */
  async function updateBody(id: number, changes: Json = {}): Promise<Json> {
    const {
      UpdateInformation: _info,
      LastLoginDate: _login,
      DisplayName: _display,
      ...user
    } = await getUser(id);
    return { ...user, ...changes };
  }

  describe("create", () => {
    it("fills the defaults: UserName, LanguageId, General User role, default parameter, DisplayName", async () => {
      const last = uniqueLast();
      const id = await createUser({ FirstName: "Jane", LastName: last });
      const user = await getUser(id);
      expect(Object.keys(user).sort()).toEqual(USER_KEYS);
      expect(user).toMatchObject({
        Id: id,
        UserName: `${last.toLowerCase()}j`,
        DisplayName: `${last}, Jane`,
        LanguageId: 1,
        AccountStatus: 1,
        SecurityId: 2,
        TimeZoneId: "UTC",
        MiddleName: null,
        DefaultHomeDashboardId: -1,
        DefaultHomeWorkspaceId: -1,
        ForcePasswordChange: false,
      });
      expect(user.UpdateInformation).toEqual({
        CreateDate: new Date(clock.now()).toISOString(),
        UpdateDate: new Date(clock.now()).toISOString(),
        CreateLogin: 1,
        UpdateLogin: 1,
      });
      expect(emulator().store.user(id)?.roles).toEqual([2]);
      // General User only: it can log in and read, but not write.
      const token = await raw().token(user.UserName, PASSWORD);
      expect((await raw().read(`/core/system/user/${id}`, token)).status).toBe(200);
      expectFailure(await post("/core/system/user/status/active/1", token), 403, "InsufficientPermission");
    });

    it("keeps the fields and roles it is given", async () => {
      const id = await createUser(
        {
          FirstName: "Ken",
          LastName: uniqueLast(),
          UserName: "kadmin",
          Title: "Deputy",
          AccountStatus: 2,
          LanguageId: 4,
          SecurityId: 1,
        },
        { Roles: [1, 3] },
        "Much#Longer#Pass1",
      );
      expect(await getUser(id)).toMatchObject({
        UserName: "kadmin",
        Title: "Deputy",
        AccountStatus: 2,
        LanguageId: 4,
        SecurityId: 1,
      });
      expect(emulator().store.user(id)?.roles).toEqual([1, 3]);
    });

    it.each([
      ["FirstName missing", { User: { LastName: "X" }, Password: PASSWORD }, "User.FirstName"],
      ["LastName null", { User: { FirstName: "X", LastName: null }, Password: PASSWORD }, "User.LastName"],
      ["Password missing", { User: { FirstName: "X", LastName: "Y" } }, "Password"],
      [
        "AccountStatus 4",
        { User: { FirstName: "X", LastName: "Y", AccountStatus: 4 }, Password: PASSWORD },
        "User.AccountStatus",
      ],
      [
        "AccountStatus 0",
        { User: { FirstName: "X", LastName: "Y", AccountStatus: 0 }, Password: PASSWORD },
        "User.AccountStatus",
      ],
      [
        "an unknown role",
        { User: { FirstName: "X", LastName: "Yz" }, Password: PASSWORD, Roles: [2, 99] },
        "role 99",
      ],
      [
        "an unknown SecurityId",
        { User: { FirstName: "X", LastName: "Yz", SecurityId: 99 }, Password: PASSWORD },
        "SecurityId",
      ],
    ])("refuses %s with a 400 naming it", async (_name, body, named) => {
      const response = await post("/core/system/user", await admin(), body);
      expectFailure(response, 400);
      expect(response.text).toContain(named);
    });

    it("refuses a user name that exists, compared case-insensitively, given or by default", async () => {
      expectFailure(
        await post("/core/system/user", await admin(), {
          User: { FirstName: "A", LastName: "B", UserName: "ANGUYEN" },
          Password: PASSWORD,
        }),
        400,
        "DuplicateUserName",
      );
      const last = uniqueLast();
      await createUser({ FirstName: "Amy", LastName: last });
      expectFailure(
        await post("/core/system/user", await admin(), {
          User: { FirstName: "Andrew", LastName: last },
          Password: PASSWORD,
        }),
        400,
        "DuplicateUserName",
      );
    });

    it("checks the password against the parameter the user will have", async () => {
      const token = await admin();
      const weak = await post("/core/system/user", token, {
        User: { FirstName: "W", LastName: uniqueLast() },
        Password: "weak",
      });
      expectFailure(weak, 400, "PasswordTooShort");
      expect(weak.text).not.toContain('"weak"');
      // Strong enough for General User Parameter (8), too short for Services Parameter (16).
      expectFailure(
        await post("/core/system/user", token, {
          User: { FirstName: "S", LastName: uniqueLast(), SecurityId: 3 },
          Password: PASSWORD,
        }),
        400,
        "PasswordTooShort",
      );
      await createUser({ FirstName: "S", LastName: uniqueLast(), SecurityId: 2 });
    });
  });

  describe("update", () => {
    it("resets omitted fields (seed Update rule 1) and stamps UpdateInformation", async () => {
      const id = await createUser(
        {
          FirstName: "Rita",
          MiddleName: "M",
          LastName: uniqueLast(),
          Title: "Lead",
          Locale: "fr-FR",
          LanguageId: 3,
          DefaultHomeDashboardId: 10,
          DefaultHomeWorkspaceId: 11,
          TimeZoneId: "Europe/Paris",
          ForcePasswordChange: true,
          SecurityId: 3,
          DomainId: 5,
          Address: "1 Main St",
          Company: "Acme",
          Department: "Risk",
          BusinessUnit: "EMEA",
          AdditionalNote: "note",
          DistinguishedName: "CN=Rita",
        },
        {},
        "Sixteen#Chars#Pw1",
      );
      const before = await getUser(id);
      clock.advance(60_000);
      const { Id, FirstName, LastName, UserName, AccountStatus } = before;
      const response = await put("/core/system/user", await admin(), {
        User: { Id, FirstName, LastName, UserName, AccountStatus },
      });
      expect(response.status).toBe(200);
      expect(response.body.RequestedObject).toEqual({ Id: id });
      const after = await getUser(id);
      expect(after).toMatchObject({
        MiddleName: null,
        Title: null,
        Locale: null,
        LanguageId: null,
        DefaultHomeDashboardId: -1,
        DefaultHomeWorkspaceId: -1,
        TimeZoneId: "UTC",
        ForcePasswordChange: false,
        SecurityId: 2,
        DomainId: null,
        Address: null,
        Company: null,
        Department: null,
        BusinessUnit: null,
        AdditionalNote: null,
        DistinguishedName: null,
      });
      expect(after.UpdateInformation.CreateDate).toBe(before.UpdateInformation.CreateDate);
      expect(after.UpdateInformation.UpdateDate).toBe(new Date(clock.now()).toISOString());
      expect(after.UpdateInformation.UpdateDate).not.toBe(before.UpdateInformation.UpdateDate);
    });

    it("keeps the fields that are sent, and accepts ID and SecurityID spellings", async () => {
      const id = await createUser({ FirstName: "Sam", LastName: uniqueLast() });
      const body = await updateBody(id, { Title: "Analyst", MiddleName: "Q" });
      const { Id, SecurityId, ...rest } = body;
      const response = await put("/core/system/user", await admin(), {
        User: { ...rest, ID: Id, SecurityID: 1 },
      });
      expect(response.status, response.text).toBe(200);
      expect(await getUser(id)).toMatchObject({
        Title: "Analyst",
        MiddleName: "Q",
        SecurityId: 1,
        LanguageId: 1,
      });
    });

    it.each([
      ["FirstName", undefined],
      ["LastName", null],
      ["UserName", undefined],
      ["AccountStatus", null],
      ["Id", undefined],
    ])("refuses %s as %s (seed Update rule 2)", async (field, value) => {
      const id = await createUser({ FirstName: "Nia", LastName: uniqueLast() });
      const user = await updateBody(id);
      if (value === undefined) delete user[field];
      else user[field] = value;
      const response = await put("/core/system/user", await admin(), { User: user });
      expectFailure(response, 400, "InvalidValue");
      expect(response.text).toContain(`User.${field}: is required and cannot be null`);
    });

    it("answers 404 for an unknown user and 400 for a user name another user has", async () => {
      const token = await admin();
      const unknown = await put("/core/system/user", token, {
        User: { Id: 9999, FirstName: "A", LastName: "B", UserName: "nobody", AccountStatus: 1 },
      });
      expectFailure(unknown, 404, "UserNotFound");
      const id = await createUser({ FirstName: "Dup", LastName: uniqueLast() });
      expectFailure(
        await put("/core/system/user", token, { User: await updateBody(id, { UserName: "BOKAFOR" }) }),
        400,
        "DuplicateUserName",
      );
      // Its own name in another case is not a collision.
      const own = await updateBody(id);
      const renamed = await put("/core/system/user", token, {
        User: { ...own, UserName: own.UserName.toUpperCase() },
      });
      expect(renamed.status).toBe(200);
    });

    it("Contacts, Roles and Groups: null or absent leave them, a list replaces them (seed Update rule 3)", async () => {
      const token = await admin();
      const id = await createUser({ FirstName: "Lia", LastName: uniqueLast() });
      const contacts = [
        { ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "lia@example.com" },
        { ContactType: 9, ContactSubType: 9, IsDefault: true, Value: "+1 555 0199" },
      ];
      const first = await put("/core/system/user", token, {
        User: await updateBody(id),
        Contacts: contacts,
        Roles: [2, 3],
        Groups: [1, 3],
      });
      expect(first.status, first.text).toBe(200);
      const stored = (await raw().read(`/core/system/usercontact/${id}`, token)).body;
      expect(stored.map((e: Json) => e.RequestedObject.Value)).toEqual(["lia@example.com", "+1 555 0199"]);

      await put("/core/system/user", token, { User: await updateBody(id), Contacts: null, Groups: null });
      const unchanged = (await raw().read(`/core/system/usercontact/${id}`, token)).body;
      expect(unchanged).toEqual(stored);
      expect(emulator().store.user(id)?.roles).toEqual([2, 3]);
      expect(emulator().store.user(id)?.groups).toEqual([1, 3]);

      // A contact sent back with its Id keeps it; a new one gets a new id.
      const kept = { ...stored[0].RequestedObject, Value: "lia@example.org" };
      await put("/core/system/user", token, {
        User: await updateBody(id),
        Contacts: [kept, { ContactType: 9, ContactSubType: 5, IsDefault: false, Value: "+1 555 0100" }],
        Roles: [2],
        Groups: [1],
      });
      const replaced = (await raw().read(`/core/system/usercontact/${id}`, token)).body.map(
        (e: Json) => e.RequestedObject,
      );
      expect(replaced).toHaveLength(2);
      expect(replaced[0]).toEqual(kept);
      expect(replaced[1].Id).not.toBe(stored[1].RequestedObject.Id);
      expect(emulator().store.user(id)?.roles).toEqual([2]);
      const group3 = (await raw().read("/core/system/user/group/3", token)).body.map(
        (e: Json) => e.RequestedObject.Id,
      );
      expect(group3).not.toContain(id);

      await put("/core/system/user", token, { User: await updateBody(id), Contacts: [] });
      expect((await raw().read(`/core/system/usercontact/${id}`, token)).body).toEqual([]);
    });

    it("refuses unknown roles and groups in the lists", async () => {
      const id = await createUser({ FirstName: "Ola", LastName: uniqueLast() });
      const token = await admin();
      expectFailure(
        await put("/core/system/user", token, { User: await updateBody(id), Roles: [77] }),
        400,
        "UnknownRole",
      );
      expectFailure(
        await put("/core/system/user", token, { User: await updateBody(id), Groups: [77] }),
        400,
        "UnknownGroup",
      );
    });

    it("setting AccountStatus 2 or 3 ends the user's sessions", async () => {
      for (const status of [2, 3]) {
        const id = await createUser({ FirstName: "End", LastName: uniqueLast() });
        const user = await getUser(id);
        const token = await raw().token(user.UserName, PASSWORD);
        const response = await put("/core/system/user", await admin(), {
          User: await updateBody(id, { AccountStatus: status }),
        });
        expect(response.status).toBe(200);
        expect((await raw().read(`/core/system/user/${id}`, token)).status).toBe(401);
        expect((await getUser(id)).AccountStatus).toBe(status);
      }
    });
  });

  describe("contact rules", () => {
    async function sendContact(contact: Json): Promise<RawResponse<Json>> {
      const id = await createUser({ FirstName: "Con", LastName: uniqueLast() });
      return put("/core/system/user", await admin(), { User: await updateBody(id), Contacts: [contact] });
    }
    const phone = (sub: number) => ({
      ContactType: 9,
      ContactSubType: sub,
      IsDefault: true,
      Value: "+1 555 0123",
    });
    const mail = (sub: number) => ({
      ContactType: 7,
      ContactSubType: sub,
      IsDefault: true,
      Value: "x@example.com",
    });

    it.each([3, 5, 9, 14])("phone accepts subtype %i", async (sub) => {
      expect((await sendContact(phone(sub))).status).toBe(200);
    });
    it.each([1, 2, 0, 15])("phone refuses subtype %i", async (sub) => {
      expectFailure(await sendContact(phone(sub)), 400, "InvalidContactSubType");
    });
    it.each([2, 3, 5, 6, 9, 10, 11, 12, 14])("e-mail accepts subtype %i", async (sub) => {
      expect((await sendContact(mail(sub))).status).toBe(200);
    });
    it.each([1, 4, 7, 8, 13, 15])("e-mail refuses subtype %i", async (sub) => {
      expectFailure(await sendContact(mail(sub)), 400, "InvalidContactSubType");
    });

    it("refuses other contact types, bad addresses and two defaults of one type", async () => {
      expectFailure(await sendContact({ ...mail(2), ContactType: 8 }), 400, "InvalidContactType");
      expectFailure(await sendContact({ ...mail(2), Value: "not-an-address" }), 400, "InvalidEmail");
      const id = await createUser({ FirstName: "Two", LastName: uniqueLast() });
      expectFailure(
        await put("/core/system/user", await admin(), {
          User: await updateBody(id),
          Contacts: [mail(2), mail(3)],
        }),
        400,
        "MultipleDefaultContacts",
      );
    });
  });

  describe("memberships", () => {
    it("adds a role with RoleId and removes it with RoleID; adding twice is idempotent", async () => {
      const id = await createUser({ FirstName: "Rol", LastName: uniqueLast() });
      const userName = (await getUser(id)).UserName;
      const token = await admin();
      for (let i = 0; i < 2; i++) {
        const added = await put("/core/system/userrole", token, { UserId: id, RoleId: 1, IsAdd: true });
        expect(added.status).toBe(200);
        expect(added.body.RequestedObject).toEqual({ Id: 1 });
      }
      expect(emulator().store.user(id)?.roles).toEqual([1, 2]);
      // The new administrator can write now.
      const own = await raw().token(userName, PASSWORD);
      expect((await post("/core/system/user/status/active/2", own)).status).toBe(200);

      const removed = await put("/core/system/userrole", token, { UserId: id, RoleID: 1, IsAdd: "false" });
      expect(removed.body.RequestedObject).toEqual({ Id: 1 });
      expect(emulator().store.user(id)?.roles).toEqual([2]);
      expectFailure(await post("/core/system/user/status/active/2", own), 403);
    });

    it("adds and removes a group, visible through users-by-group", async () => {
      const id = await createUser({ FirstName: "Grp", LastName: uniqueLast() });
      const token = await admin();
      const members = async () =>
        (await raw().read("/core/system/user/group/4", token)).body.map((e: Json) => e.RequestedObject.Id);
      const added = await put("/core/system/usergroup", token, { UserId: id, GroupId: 4, IsAdd: true });
      expect(added.body.RequestedObject).toEqual({ Id: 4 });
      await put("/core/system/usergroup", token, { userid: id, groupid: 4, isadd: true });
      expect(await members()).toContain(id);
      expect(emulator().store.user(id)?.groups).toEqual([1, 4]);
      await put("/core/system/usergroup", token, { UserId: id, GroupId: 4, IsAdd: false });
      expect(await members()).not.toContain(id);
    });

    it("answers 404 for an unknown user, role or group", async () => {
      const token = await admin();
      expectFailure(
        await put("/core/system/userrole", token, { UserId: 9999, RoleId: 1, IsAdd: true }),
        404,
        "UserNotFound",
      );
      expectFailure(
        await put("/core/system/userrole", token, { UserId: 2, RoleId: 99, IsAdd: true }),
        404,
        "RoleNotFound",
      );
      expectFailure(
        await put("/core/system/usergroup", token, { UserId: 2, GroupId: 99, IsAdd: true }),
        404,
        "GroupNotFound",
      );
    });
  });

  describe("change password", () => {
    it("enforces length, character classes and history; a good one replaces the old", async () => {
      const id = await createUser({ FirstName: "Pat", LastName: uniqueLast() });
      const userName = (await getUser(id)).UserName;
      const token = await admin();
      const change = (NewPassword: string) =>
        put("/core/system/userpassword", token, { UserId: id, NewPassword });

      const short = await change("Ab1#");
      expectFailure(short, 400, "PasswordTooShort");
      expect(short.text).not.toContain("Ab1#");
      expectFailure(await change("NoDigits#here"), 400, "PasswordNeedsNumeric");
      expectFailure(await change("alllower#123"), 400, "PasswordNeedsUppercase");
      expectFailure(await change(PASSWORD), 400, "PasswordReused");

      const good = await change("Brand#New#2026");
      expect(good.status).toBe(200);
      expect(good.body).toEqual({
        Links: [],
        RequestedObject: {},
        IsSuccessful: true,
        ValidationMessages: [],
      });
      expect((await raw().login(userName, PASSWORD)).body.IsSuccessful).toBe(false);
      expect((await raw().login(userName, "Brand#New#2026")).body.IsSuccessful).toBe(true);
      // General User Parameter remembers 3 passwords: the first one is still refused.
      expectFailure(await change(PASSWORD), 400, "PasswordReused");
      expect((await change("Third#Pass#2026")).status).toBe(200);
      expect((await change("Fourth#Pass#2026")).status).toBe(200);
      expect((await change(PASSWORD)).status).toBe(200);
    });

    it("answers 404 for an unknown user and 403 for a non-administrator", async () => {
      expectFailure(
        await put("/core/system/userpassword", await admin(), {
          UserId: 9999,
          NewPassword: "Brand#New#2026",
        }),
        404,
      );
      const user = await raw().token("anguyen", "Welcome#2026");
      expectFailure(
        await put("/core/system/userpassword", user, { UserId: 2, NewPassword: "Brand#New#2026" }),
        403,
      );
    });
  });

  describe("activate and deactivate", () => {
    it("deactivate sets 2 and ends sessions; activate sets 1", async () => {
      const id = await createUser({ FirstName: "Act", LastName: uniqueLast() });
      const userName = (await getUser(id)).UserName;
      const session = await raw().token(userName, PASSWORD);
      const token = await admin();
      const off = await post(`/core/system/user/status/inactive/${id}`, token);
      expect(off.status).toBe(200);
      expect(off.body.RequestedObject).toEqual({ Id: id });
      expect((await getUser(id)).AccountStatus).toBe(2);
      expect((await raw().read(`/core/system/user/${id}`, session)).status).toBe(401);
      expect((await raw().login(userName, PASSWORD)).body.ValidationMessages[0].MessageKey).toBe(
        "AccountInactive",
      );

      const on = await post(`/core/system/user/status/active/${id}`, token);
      expect(on.body.RequestedObject).toEqual({ Id: id });
      expect((await getUser(id)).AccountStatus).toBe(1);
      expect((await raw().login(userName, PASSWORD)).body.IsSuccessful).toBe(true);
    });

    it("activating a locked user unlocks it at once", async () => {
      const id = await createUser({ FirstName: "Loc", LastName: uniqueLast() });
      const userName = (await getUser(id)).UserName;
      for (let i = 0; i < 3; i++) await raw().login(userName, "wrong");
      expect((await getUser(id)).AccountStatus).toBe(3);
      expect((await raw().login(userName, PASSWORD)).body.ValidationMessages[0].MessageKey).toBe(
        "AccountLocked",
      );
      expect((await post(`/core/system/user/status/active/${id}`, await admin())).status).toBe(200);
      expect((await raw().login(userName, PASSWORD)).body.IsSuccessful).toBe(true);
      expect(emulator().store.user(id)?.failedLogins).toBe(0);
    });

    it("answers 404 for an unknown user and 400 for a non-numeric id", async () => {
      expectFailure(await post("/core/system/user/status/active/9999", await admin()), 404, "UserNotFound");
      expectFailure(await post("/core/system/user/status/inactive/abc", await admin()), 400, "InvalidId");
    });
  });

  describe("delete", () => {
    it("deletes a user, ends its sessions, and answers with ValidationMessages null", async () => {
      const id = await createUser({ FirstName: "Del", LastName: uniqueLast() });
      const session = await raw().token((await getUser(id)).UserName, PASSWORD);
      const token = await admin();
      const response = await raw().call(`/core/system/user/${id}`, { method: "DELETE", token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        Links: [],
        RequestedObject: { Id: id },
        IsSuccessful: true,
        ValidationMessages: null,
      });
      expectFailure(await raw().read(`/core/system/user/${id}`, token), 404, "UserNotFound");
      expect((await raw().read("/core/system/user/1", session)).status).toBe(401);
      expectFailure(await raw().call(`/core/system/user/${id}`, { method: "DELETE", token }), 404);
    });

    it("refuses to delete sysadmin or yourself, and needs the administrator role", async () => {
      const token = await admin();
      expectFailure(
        await raw().call("/core/system/user/1", { method: "DELETE", token }),
        400,
        "CannotDeleteAdministrator",
      );
      const service = await raw().token("svc_gitops", "GitOps#Service2026");
      expectFailure(
        await raw().call("/core/system/user/9", { method: "DELETE", token: service }),
        400,
        "CannotDeleteSelf",
      );
      const user = await raw().token("bokafor", "Welcome#2026");
      expectFailure(await raw().call("/core/system/user/8", { method: "DELETE", token: user }), 403);
      expect((await getUser(8)).UserName).toBe("gmorales");
    });
  });

  describe("non-administrators", () => {
    it("get 403 on every write and can still read", async () => {
      const token = await raw().token("anguyen", "Welcome#2026");
      expectFailure(
        await post("/core/system/user", token, {
          User: { FirstName: "A", LastName: "B" },
          Password: PASSWORD,
        }),
        403,
        "InsufficientPermission",
      );
      expectFailure(await put("/core/system/user", token, { User: await updateBody(2) }), 403);
      expectFailure(await put("/core/system/userrole", token, { UserId: 2, RoleId: 1, IsAdd: true }), 403);
      expectFailure(await put("/core/system/usergroup", token, { UserId: 2, GroupId: 2, IsAdd: true }), 403);
      expectFailure(await post("/core/system/user/status/inactive/3", token), 403);
      expect(emulator().store.user(2)?.roles).not.toContain(1);
      expect((await raw().read("/core/system/user", token)).status).toBe(200);
    });
  });

  describe("reads", () => {
    it("get all: one envelope per user with the whole User", async () => {
      const response = await raw().read("/core/system/user", await admin());
      expect(response.status).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
      expect(response.body.length).toBe(Object.keys(emulator().store.data.users).length);
      for (const envelope of response.body) {
        expect(envelope.IsSuccessful).toBe(true);
        expect(Object.keys(envelope.RequestedObject).sort()).toEqual(USER_KEYS);
      }
      expect(response.body.slice(0, 3).map((e: Json) => e.RequestedObject.UserName)).toEqual([
        "sysadmin",
        "anguyen",
        "bokafor",
      ]);
    });

    it("lists every user's fields in the interface's order, seeded and created alike", async () => {
      const token = await admin();
      const created = await createUser({ FirstName: "Order", LastName: uniqueLast() });
      const users = (await raw().read("/core/system/user", token)).body.map((e: Json) => e.RequestedObject);
      // The order of the seed's User table, which the wire schema follows.
      const order = Object.keys(User.shape);
      expect(users.some((user: Json) => user.Id === created)).toBe(true);
      for (const user of users) expect(Object.keys(user)).toEqual(order);
    });

    it("get all takes $filter, $select, $top, $skip and $orderby, with field names in any case", async () => {
      const token = await admin();
      const read = async (query: string) =>
        (await raw().read(`/core/system/user?${query}`, token)).body.map((e: Json) => e.RequestedObject);
      expect(await read(`$filter=${encodeURIComponent("username eq 'ANGUYEN'")}`)).toHaveLength(1);
      expect(await read(`$filter=${encodeURIComponent("Id le 3")}&$select=Id,UserName`)).toEqual([
        { Id: 1, UserName: "sysadmin" },
        { Id: 2, UserName: "anguyen" },
        { Id: 3, UserName: "bokafor" },
      ]);
      expect(await read("$orderby=Id%20desc&$skip=1&$top=2&$select=Id")).toHaveLength(2);
      const descending = await read(
        `$filter=${encodeURIComponent("Id le 9")}&$orderby=UserName%20desc&$select=UserName`,
      );
      expect(descending.slice(0, 2)).toEqual([{ UserName: "sysadmin" }, { UserName: "svc_gitops" }]);
      expect(descending.at(-1)).toEqual({ UserName: "anguyen" });
      const inactive = await read(
        `$filter=${encodeURIComponent("AccountStatus eq 2 and Id le 9")}&$select=UserName`,
      );
      expect(inactive).toEqual([{ UserName: "fkim" }]);
    });

    it.each([
      ["$filter=Bogus%20eq%201", /unknown field 'Bogus'/],
      ["$filter=Id%20eq", /\$filter: the expression ends/],
      ["$top=-1", /\$top: must be a non-negative integer/],
      ["$select=Id,Nope", /\$select: unknown field 'Nope'/],
      ["$orderby=Id%20up", /\$orderby:/],
    ])("a bad query %s is a 400 envelope naming the problem", async (query, pattern) => {
      const response = await raw().read(`/core/system/user?${query}`, await admin());
      expectFailure(response, 400, "InvalidQuery");
      expect(response.body.ValidationMessages[0].Description).toMatch(pattern);
    });

    it("get by id: the user; 404 unknown; 400 for an id that is not a positive integer", async () => {
      const token = await admin();
      const response = await raw().read("/core/system/user/2", token);
      expect(response.body).toMatchObject({
        IsSuccessful: true,
        RequestedObject: { Id: 2, UserName: "anguyen" },
      });
      expectFailure(await raw().read("/core/system/user/9999", token), 404, "UserNotFound");
      for (const bad of ["abc", "1.5", "-1", "0"])
        expectFailure(await raw().read(`/core/system/user/${bad}`, token), 400, "InvalidId");
    });

    it("users by group lists the group's members; unknown group is 404", async () => {
      const token = await admin();
      const response = await raw().read("/core/system/user/group/3", token);
      const names = response.body.map((e: Json) => e.RequestedObject.UserName);
      expect(names).toEqual(expect.arrayContaining(["anguyen", "bokafor", "ejohansson", "gmorales"]));
      expect(names).not.toContain("cmendes");
      expectFailure(await raw().read("/core/system/user/group/999", token), 404, "GroupNotFound");
    });

    it("all user contacts: one envelope per user, users without contacts included", async () => {
      const response = await raw().read("/core/system/usercontact", await admin());
      expect(response.status).toBe(200);
      expect(response.body.length).toBe(Object.keys(emulator().store.data.users).length);
      const byUser = new Map(
        response.body.map((e: Json) => [e.RequestedObject.UserId, e.RequestedObject.Contacts]),
      );
      expect(byUser.get(8)).toEqual([]);
      expect((byUser.get(2) as Json[]).map((c) => c.Value)).toEqual([
        "anguyen@example.com",
        "+1 555 0100",
        "+1 555 0101",
      ]);
    });

    it("contacts for a user: one envelope per contact; 404 unknown", async () => {
      const token = await admin();
      const response = await raw().call("/core/system/usercontact/2", { token });
      expect(response.body).toHaveLength(3);
      expect(response.body[0]).toMatchObject({
        IsSuccessful: true,
        RequestedObject: { ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "anguyen@example.com" },
      });
      expect(typeof response.body[0].RequestedObject.Id).toBe("number");
      expectFailure(await raw().call("/core/system/usercontact/9999", { token }), 404);
    });
  });

  describe("tasks", () => {
    const tasks = async (token: string, Value?: string) => {
      const response = await raw().read(
        "/core/system/task",
        token,
        Value === undefined ? {} : { body: { Value } },
      );
      expect(response.status, response.text).toBe(200);
      return response.body.map((e: Json) => e.RequestedObject);
    };

    it("lists the caller's tasks, without UserId", async () => {
      const all = await tasks(await admin());
      expect(all.map((t: Json) => t.Title)).toEqual([
        "Review new user requests",
        "Rotate service credentials",
        "Archive 2025 audit logs",
        "Quarterly access review",
      ]);
      expect(Object.keys(all[0]).sort()).toEqual([
        "Description",
        "DueDate",
        "IsComplete",
        "TargetContentId",
        "TaskId",
        "Title",
      ]);
      const own = await tasks(await raw().token("anguyen", "Welcome#2026"));
      expect(own.map((t: Json) => t.Title)).toEqual([
        "Assess vendor risk: Acme Hosting",
        "Update risk register",
      ]);
    });

    it("takes an OData query in Value: $filter, $skip and $top", async () => {
      const token = await admin();
      const open = await tasks(token, "$filter=IsComplete eq false");
      expect(open).toHaveLength(3);
      expect(open.every((t: Json) => t.IsComplete === false)).toBe(true);
      const page = await tasks(token, "$skip=1&$top=2");
      expect(page.map((t: Json) => t.Title)).toEqual([
        "Rotate service credentials",
        "Archive 2025 audit logs",
      ]);
      const both = await tasks(token, "$skip=0&$top=10&$filter=IsComplete eq false");
      expect(both).toEqual(open);
      const due = await tasks(token, "$filter=DueDate lt 2026-02-10T00:00:00Z&$orderby=DueDate desc");
      expect(due.map((t: Json) => t.Title)).toEqual(["Review new user requests", "Archive 2025 audit logs"]);
    });

    it("a plain GET with a URL query works too", async () => {
      const response = await raw().call("/core/system/task?$top=1", { token: await admin() });
      expect(response.body).toHaveLength(1);
    });

    it("a bad query is a 400 envelope", async () => {
      const token = await admin();
      for (const Value of ["$filter=IsComplete eq", "$filter=Nope eq 1", "$top=x", "garbage"]) {
        expectFailure(await raw().read("/core/system/task", token, { body: { Value } }), 400, "InvalidQuery");
      }
    });
  });
});
