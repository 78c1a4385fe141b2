import { describe, expect, it } from "vitest";
import { type Json, type RawResponse, useEmulator } from "../helpers/raw.ts";

/* The security parameter segment over real HTTP, on the demo-dev seed (parameters 1, 2, 3). */

const PATH = "/core/system/securityparameter";

describe("security parameters", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  let serial = 0;
  const uniqueName = () => `Test Parameter ${++serial}`;

  const admin = () => raw().token();

  function expectFailure(response: RawResponse<Json>, status: number, key?: string): void {
    expect(response.status).toBe(status);
    expect(response.body.IsSuccessful).toBe(false);
    expect(response.body.ValidationMessages.length).toBeGreaterThan(0);
    if (key) expect(response.body.ValidationMessages.map((m: Json) => m.MessageKey)).toContain(key);
  }

  const create = async (body: Json) => raw().call(PATH, { method: "POST", token: await admin(), body });
  const update = async (body: Json) => raw().call(PATH, { method: "PUT", token: await admin(), body });
  const remove = async (id: number | string) =>
    raw().call(`${PATH}/${id}`, { method: "DELETE", token: await admin() });

  async function read(id: number): Promise<Json> {
    const response = await raw().read(`${PATH}/${id}`, await admin());
    expect(response.status).toBe(200);
    return response.body.RequestedObject;
  }

  async function createOk(fields: Json = {}): Promise<number> {
    const response = await create({ Name: uniqueName(), ...fields });
    expect(response.status, response.text).toBe(200);
    expect(response.body.IsSuccessful).toBe(true);
    return response.body.RequestedObject.Id;
  }

  describe("create", () => {
    it("assigns Id, Alias and GUID, fills defaults, and ignores a sent Id, Alias or GUID", async () => {
      const response = await create({
        Name: "Contractors & Vendors",
        Description: "Third parties",
        MinPasswordLength: 12,
        Id: 999,
        Alias: "mine",
        GUID: "00000000-0000-0000-0000-000000000000",
      });
      expect(response.status, response.text).toBe(200);
      const id = response.body.RequestedObject.Id;
      expect(id).toBe(4);
      const created = await read(id);
      expect(created).toMatchObject({
        Id: 4,
        Name: "Contractors & Vendors",
        Alias: "Contractors_Vendors",
        Description: "Third parties",
        MinPasswordLength: 12,
        LockoutPeriodType: 2,
        SessionTimeoutType: 2,
        Default: false,
        TimeZoneCode: "UTC",
      });
      expect(created.GUID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(created.GUID).not.toBe("00000000-0000-0000-0000-000000000000");
    });

    it("refuses a name that exists, compared case-insensitively, and a missing name", async () => {
      expectFailure(await create({ Name: "general user PARAMETER" }), 400, "DuplicateName");
      const missing = await create({ Description: "no name" });
      expectFailure(missing, 400, "InvalidValue");
      expect(missing.text).toContain("Name: is required");
    });

    it("makes the alias unique when two names differ only in punctuation", async () => {
      const first = await read(await createOk({ Name: "Alias-Clash" }));
      const second = await read(await createOk({ Name: "Alias Clash" }));
      expect(first.Alias).toBe("Alias_Clash");
      expect(second.Alias).toBe("Alias_Clash_2");
    });

    it("accepts the TimeZonCode spelling and reads it back as TimeZoneCode", async () => {
      const created = await read(await createOk({ TimeZonCode: "Europe/Berlin" }));
      expect(created.TimeZoneCode).toBe("Europe/Berlin");
      expect(created).not.toHaveProperty("TimeZonCode");
    });

    it.each([
      ["LockoutPeriodType 0", { LockoutPeriodType: 0 }, "LockoutPeriodType"],
      ["LockoutPeriodType 4", { LockoutPeriodType: 4 }, "LockoutPeriodType"],
      ["SessionTimeoutType 9", { SessionTimeoutType: 9 }, "SessionTimeoutType"],
      ["a day that is not a day", { DisallowedSessionDays: [1, 3] }, "DisallowedSessionDays: 3 is not a day"],
      ["a day listed twice", { DisallowedSessionDays: [2, 2] }, "lists a day twice"],
      [
        "a negative count",
        { MaximumFailedLoginAttempts: -1 },
        "MaximumFailedLoginAttempts: cannot be negative",
      ],
      ["a negative session timeout", { SessionTimeout: -5 }, "SessionTimeout: cannot be negative"],
      [
        "more required characters than the length",
        {
          MinPasswordLength: 4,
          UppercaseCharsRequired: 2,
          LowercaseCharsRequired: 2,
          NumericCharsRequired: 1,
        },
        "MinPasswordLength: must be at least 5",
      ],
      ["a PermittedFromTime that is not a date-time", { PermittedFromTime: "9am" }, "PermittedFromTime"],
      [
        "a time frame without times",
        { IsLimitByTimeFrame: true, PermittedFromTime: "2026-01-01T08:00:00" },
        "PermittedToTime: is required",
      ],
      [
        "a LockedDate that is not a date-time",
        { DisallowedDates: [{ LockedDate: "2026-02-30T00:00:00" }] },
        "LockedDate",
      ],
      ["a count that is a word", { GraceLogins: "three" }, "GraceLogins"],
    ])("refuses %s", async (_name, fields, named) => {
      const response = await create({ Name: uniqueName(), ...fields });
      expectFailure(response, 400);
      expect(response.text).toContain(named);
    });

    it("accepts valid days, dates and time frames", async () => {
      const id = await createOk({
        IsDisallowedByDays: true,
        DisallowedSessionDays: [1, 64],
        IsDisallowedByDates: true,
        DisallowedDates: [
          { LockedDate: "2026-12-25T00:00:00" },
          { LockedDate: "2027-01-01T00:00:00.0000000Z" },
        ],
        IsLimitByTimeFrame: true,
        PermittedFromTime: "2026-01-01T08:00:00",
        PermittedToTime: "2026-01-01T18:30:00+01:00",
      });
      expect((await read(id)).DisallowedSessionDays).toEqual([1, 64]);
    });

    it("Default: true on one clears it on the others", async () => {
      const id = await createOk({ Default: true });
      const all = (await raw().read(PATH, await admin())).body.map((e: Json) => e.RequestedObject);
      expect(all.filter((p: Json) => p.Default).map((p: Json) => p.Id)).toEqual([id]);
      // Put the seed's default back, so that other tests see General User Parameter as default.
      const general = await read(2);
      expect((await update({ ...general, Default: true })).status).toBe(200);
      expect((await read(id)).Default).toBe(false);
    });
  });

  describe("reads", () => {
    it("get all: one envelope per parameter, with TimeZoneCode", async () => {
      const response = await raw().read(PATH, await admin());
      expect(response.status).toBe(200);
      expect(response.body.length).toBe(emulator().store.allSecurityParameters().length);
      expect(response.body.slice(0, 3).map((e: Json) => e.RequestedObject.Name)).toEqual([
        "Default Administrative User",
        "General User Parameter",
        "Services Parameter",
      ]);
      for (const envelope of response.body) {
        expect(envelope.IsSuccessful).toBe(true);
        expect(envelope.RequestedObject).toHaveProperty("TimeZoneCode");
      }
    });

    it("get by id: the parameter; 404 unknown; 400 non-numeric", async () => {
      const token = await admin();
      const found = await raw().read(`${PATH}/2`, token);
      expect(found.body.RequestedObject).toMatchObject({
        Id: 2,
        Name: "General User Parameter",
        Default: true,
      });
      expectFailure(await raw().read(`${PATH}/999`, token), 404, "SecurityParameterNotFound");
      expectFailure(await raw().read(`${PATH}/two`, token), 400, "InvalidId");
    });

    it("reads need a session but not the administrator role; writes need the role", async () => {
      const user = await raw().token("anguyen", "Welcome#2026");
      expect((await raw().read(PATH, user)).status).toBe(200);
      expectFailure(
        await raw().call(PATH, { method: "POST", token: user, body: { Name: uniqueName() } }),
        403,
      );
      expectFailure(await raw().call(`${PATH}/3`, { method: "DELETE", token: user }), 403);
      const live = await read(3);
      expectFailure(
        await raw().call(PATH, { method: "PUT", token: user, body: { ...live, Description: "x" } }),
        403,
      );
      expect((await raw().read(PATH, "")).status).toBe(401);
    });
  });

  describe("update", () => {
    it("changes the fields sent and keeps the ones omitted", async () => {
      const id = await createOk({ Description: "before", GraceLogins: 7 });
      const { Id, Alias, GUID } = await read(id);
      const response = await update({ Id, Alias, GUID, Description: "after", MinPasswordLength: 14 });
      expect(response.status, response.text).toBe(200);
      expect(response.body.RequestedObject).toEqual({ Id: id });
      expect(await read(id)).toMatchObject({ Description: "after", MinPasswordLength: 14, GraceLogins: 7 });
    });

    it("accepts TimeZonCode, the seed example's spelling, and reads back TimeZoneCode", async () => {
      const live = await read(await createOk());
      const { TimeZoneCode: _zone, ...rest } = live;
      expect((await update({ ...rest, TimeZonCode: "America/New_York" })).status).toBe(200);
      const after = await read(live.Id);
      expect(after.TimeZoneCode).toBe("America/New_York");
      expect(after).not.toHaveProperty("TimeZonCode");
    });

    it.each(["Id", "Alias", "GUID"])("refuses an update without %s", async (field) => {
      const live = await read(await createOk());
      delete live[field];
      const response = await update({ ...live, Description: "changed" });
      expectFailure(response, 400, "InvalidValue");
      expect(response.text).toContain(`${field}: is required`);
      if (field !== "Id") expect((await read(live.Id)).Description).toBeNull();
    });

    it("refuses an Alias or GUID that is not the live one, and 404s an unknown Id", async () => {
      const live = await read(await createOk());
      expectFailure(await update({ ...live, Alias: "Other" }), 400, "AliasMismatch");
      expectFailure(
        await update({ ...live, GUID: "11111111-1111-1111-1111-111111111111" }),
        400,
        "GuidMismatch",
      );
      expectFailure(await update({ ...live, Id: 999 }), 404, "SecurityParameterNotFound");
    });

    it("applies range checks to the result, refuses a taken name and unsetting the only default", async () => {
      const live = await read(await createOk());
      expectFailure(await update({ ...live, SessionTimeoutType: 0 }), 400, "InvalidValue");
      expectFailure(await update({ ...live, Name: "Services Parameter" }), 400, "DuplicateName");
      const general = await read(2);
      expectFailure(await update({ ...general, Default: false }), 400, "DefaultRequired");
      expect((await read(2)).Default).toBe(true);
    });
  });

  describe("delete", () => {
    it("deletes an unreferenced parameter", async () => {
      const id = await createOk();
      const response = await remove(id);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        Links: [],
        RequestedObject: { Id: id },
        IsSuccessful: true,
        ValidationMessages: null,
      });
      expectFailure(await raw().read(`${PATH}/${id}`, await admin()), 404);
      expectFailure(await remove(id), 404);
    });

    it("refuses to delete a parameter that users still reference, or the default", async () => {
      const referenced = await remove(3); // svc_gitops uses Services Parameter
      expectFailure(referenced, 400, "SecurityParameterInUse");
      expect(referenced.body.ValidationMessages[0].Description).toContain("assigned to 1 user");
      expectFailure(await remove(2), 400, "CannotDeleteDefault");
      expect((await read(3)).Name).toBe("Services Parameter");
    });

    it("a created parameter governs the users that get it", async () => {
      const id = await createOk({ MinPasswordLength: 20 });
      const token = await admin();
      const weak = await raw().call("/core/system/user", {
        method: "POST",
        token,
        body: { User: { FirstName: "P", LastName: "Param", SecurityId: id }, Password: "Strong#Pass1" },
      });
      expectFailure(weak, 400, "PasswordTooShort");
      const strong = await raw().call("/core/system/user", {
        method: "POST",
        token,
        body: {
          User: { FirstName: "P", LastName: "Param", SecurityId: id },
          Password: "Twenty#Characters#Pw1",
        },
      });
      expect(strong.status).toBe(200);
      expectFailure(await remove(id), 400, "SecurityParameterInUse");
    });
  });
});
