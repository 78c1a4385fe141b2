import { describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src/emulator/seeds/demo-users.ts";
import type { Store } from "../../src/emulator/store.ts";
import { Group, Role } from "../../src/wire/index.ts";
import { type Json, Raw, useEmulator } from "../helpers/raw.ts";

/*
 * Roles and memberships read back (docs/emulator.md, "Roles and memberships"): the role list, a
 * user's roles and a user's groups, under both prefixes and in XML, as hosted instances answer
 * them; a membership changed by the description's calls reads back at once.
 */

const requested = (response: { body: Json }) => response.body.map((e: Json) => e.RequestedObject);

function userId(store: Store, userName: string): number {
  const found = Object.values(store.data.users).find((u) => u.user.UserName === userName);
  if (!found) throw new Error(`no user ${userName}`);
  return found.user.Id;
}

const roleNames = (store: Store, ids: number[]) =>
  [...ids].sort((a, b) => a - b).map((id) => store.data.roles[String(id)]?.Name);

describe("role and membership reads (demo-dev)", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const store = () => emulator().store;

  it("the role list answers every role the instance holds, in id order, with OData options", async () => {
    const token = await raw().token("anguyen", DEMO_PASSWORD);
    const response = await raw().call("/core/system/role", { token });
    expect(response.status, response.text).toBe(200);
    const roles = requested(response);
    for (const role of roles) expect(Role.strict().safeParse(role).success).toBe(true);
    const held = Object.values(store().data.roles).sort((a, b) => a.Id - b.Id);
    expect(roles.map((r: Json) => [r.Id, r.Name])).toEqual(held.map((r) => [r.Id, r.Name]));
    const one = await raw().read(
      `/core/system/role?$filter=${encodeURIComponent("Name eq 'Risk Manager'")}&$select=Id,Name`,
      token,
    );
    expect(requested(one)).toEqual([
      { Id: held.find((r) => r.Name === "Risk Manager")?.Id, Name: "Risk Manager" },
    ]);
    const byId = await raw().read(`/core/system/role/${held[0]?.Id}`, token);
    expect(byId.body.RequestedObject.Name).toBe(held[0]?.Name);
    expect((await raw().read("/core/system/role/9999", token)).body.ValidationMessages[0].MessageKey).toBe(
      "RoleNotFound",
    );
  });

  it("a user's roles and groups answer what the emulator holds, and follow a membership change", async () => {
    const admin = await raw().token();
    const id = userId(store(), "bokafor");
    const record = () => store().data.users[String(id)];
    const roles = async () => requested(await raw().call(`/core/system/role/user/${id}`, { token: admin }));
    const groups = async () => requested(await raw().read(`/core/system/group/user/${id}`, admin));
    expect((await roles()).map((r: Json) => r.Name)).toEqual(roleNames(store(), record()?.roles ?? []));
    const groupNames = (ids: number[]) =>
      [...ids].sort((a, b) => a - b).map((g) => store().data.groups[String(g)]?.Name);
    const before = await groups();
    for (const group of before) expect(Group.strict().safeParse(group).success).toBe(true);
    expect(before.map((g: Json) => g.Name)).toEqual(groupNames(record()?.groups ?? []));

    const auditor = Object.values(store().data.roles).find((r) => r.Name === "Auditor")?.Id;
    const auditors = Object.values(store().data.groups).find((g) => g.Name === "Auditors")?.Id;
    const put = (path: string, body: Json) => raw().call(path, { method: "PUT", token: admin, body });
    expect((await put("/core/system/userrole", { UserId: id, RoleId: auditor, IsAdd: true })).status).toBe(
      200,
    );
    expect((await put("/core/system/usergroup", { UserId: id, GroupId: auditors, IsAdd: true })).status).toBe(
      200,
    );
    expect((await roles()).map((r: Json) => r.Name)).toContain("Auditor");
    expect((await groups()).map((g: Json) => g.Name)).toContain("Auditors");
    expect((await roles()).map((r: Json) => r.Name)).toEqual(roleNames(store(), record()?.roles ?? []));

    expect((await put("/core/system/userrole", { UserId: id, RoleId: auditor, IsAdd: false })).status).toBe(
      200,
    );
    expect((await roles()).map((r: Json) => r.Name)).not.toContain("Auditor");
  });

  it("answers under /api as under /platformapi, and in XML", async () => {
    const token = await raw().token();
    const id = userId(store(), "anguyen");
    for (const path of [
      "/core/system/role",
      `/core/system/role/user/${id}`,
      `/core/system/group/user/${id}`,
    ]) {
      const platform = await raw().read(path, token);
      const api = await raw().read(path, token, { prefix: "/api" });
      expect(api.status, `${path}: ${api.text}`).toBe(200);
      expect(api.body).toEqual(platform.body);
      const xml = await raw().read(path, token, { headers: { accept: "application/xml" } });
      expect(xml.status).toBe(200);
      expect(xml.text).toMatch(/^(<\?xml[^>]*>)?<ArrayOfResponseEnvelope/);
      for (const item of platform.body)
        expect(xml.text).toContain(`<Name>${item.RequestedObject.Name}</Name>`);
    }
  });

  it("an unknown user is 404, a bad id 400, and no session 401", async () => {
    const token = await raw().token();
    const unknown = await raw().read("/core/system/role/user/99999", token);
    expect(unknown.status).toBe(404);
    expect(unknown.body.ValidationMessages[0].MessageKey).toBe("UserNotFound");
    expect((await raw().read("/core/system/group/user/99999", token)).status).toBe(404);
    expect((await raw().read("/core/system/role/user/abc", token)).status).toBe(400);
    expect((await raw().call("/core/system/role")).status).toBe(401);
  });
});

describe("role and membership reads with integrations off", () => {
  const { raw } = useEmulator({ seed: "demo-dev", integrations: false });

  it("answer 404, like the other surfaces beyond the description", async () => {
    const token = await raw().token();
    for (const path of [
      "/core/system/role",
      "/core/system/role/1",
      "/core/system/role/user/1",
      "/core/system/group/user/1",
    ]) {
      expect((await raw().read(path, token)).status, path).toBe(404);
    }
    expect((await raw().read("/core/system/group", token)).status).toBe(200);
  });
});

describe("role reads on a release before 6.5", () => {
  const { raw } = useEmulator({ seed: "demo-dev", release: "6.4.0" });

  it("answer under /api", async () => {
    const api = new Raw(raw().url, "/api");
    const token = await api.token();
    expect(requested(await api.read("/core/system/role/user/1", token)).map((r: Json) => r.Name)).toContain(
      "System Administrator",
    );
  });
});

describe("role and membership reads in the foreign profile", () => {
  const { raw } = useEmulator({ seed: "demo-dev", profile: "foreign" });

  it("answer 404: it stands for an instance without them", async () => {
    const token = await raw().token();
    for (const path of ["/core/system/role", "/core/system/role/user/1", "/core/system/group/user/1"]) {
      expect((await raw().read(path, token)).status, path).toBe(404);
    }
  });
});
