import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { postInput } from "../../src/emulator/content/bodies.ts";
import { createRecord } from "../../src/emulator/content/write-record.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { DEMO_PASSWORD } from "../../src/emulator/seeds/demo-users.ts";
import { type Json, Raw, useEmulator } from "../helpers/raw.ts";

/*
 * Surfaces beyond the interface description that integrations written against real instances use
 * (docs/emulator.md, "Beyond the interface description"): the Content API, the CSRF lookup, groups
 * with DisplayName, the workflow action POST, `/api/core/...` from 6.5, the base path and the login
 * answer; over real HTTP on the demo-dev seed.
 */

const root = { prefix: "" };

describe("surfaces integrations use", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const field = (path: string) => {
    const found = catalogueOf(emulator().store).byGuid("fields", demoGuid(path));
    if (!found) throw new Error(`no field ${path}`);
    return found;
  };
  const valueId = (path: string, name: string) => {
    const found = field(path).ValuesListValues.find((v) => v.Name === name);
    if (!found) throw new Error(`no value ${name}`);
    return found.Id;
  };
  const contentApi = async (path: string, headers: Record<string, string> = {}) => {
    const token = await raw().token();
    return raw().call(`/contentapi${path}`, { ...root, token, headers });
  };

  describe("the Content API", () => {
    it("lists one entity set per level alias in the service document", async () => {
      const response = await contentApi("/");
      expect(response.status).toBe(200);
      expect(response.body["@odata.context"]).toBe(`${emulator().url}/contentapi/$metadata`);
      const sets = response.body.value as Json[];
      expect(sets).toContainEqual({ name: "Risk", kind: "EntitySet", url: "Risk" });
      expect(sets).toContainEqual({ name: "Policy_Section", kind: "EntitySet", url: "Policy_Section" });
      expect(new Set(sets.map((s: Json) => s.name)).size).toBe(sets.length);
    });

    it("reads one record by key, fields by alias and values lists as value names", async () => {
      const response = await contentApi("/Risk(1002)");
      expect(response.status).toBe(200);
      expect(response.body["@odata.context"]).toBe(`${emulator().url}/contentapi/$metadata#Risk`);
      expect(response.body.value).toHaveLength(1);
      expect(response.body.value[0]).toMatchObject({
        Risk_Id: 1002,
        Risk_Name: "Cloud provider outage",
        Category: ["Technology"],
        Likelihood: ["Possible"],
        Risk_Score: 16,
        Identified_Date: "2026-01-12",
      });
    });

    it("filters, pages and selects a level's records with OData options", async () => {
      const filter = encodeURIComponent("Risk_Score ge 10");
      const response = await contentApi(`/Risk?$filter=${filter}&$select=Risk_Id,Risk_Name&$top=1`);
      expect(response.status).toBe(200);
      expect(response.body.value).toEqual([{ Risk_Id: 1002, Risk_Name: "Cloud provider outage" }]);
      const next = await contentApi(`/Risk?$filter=${filter}&$select=Risk_Id&$top=1&$skip=1`);
      expect(next.body.value).toEqual([{ Risk_Id: 1008 }]);
      const byValue = await contentApi(`/Risk?$filter=${encodeURIComponent("Category eq 'Compliance'")}`);
      expect(byValue.body.value.map((r: Json) => r.Risk_Id)).toEqual([1008]);
      const sorted = await contentApi(
        `/Risk?$orderby=${encodeURIComponent("Risk_Name desc")}&$select=Risk_Id`,
      );
      expect(sorted.body.value).toEqual([{ Risk_Id: 1008 }, { Risk_Id: 1002 }]);
    });

    it("takes the options without `$` as well, as public clients send them", async () => {
      const response = await contentApi("/Risk?skip=1&top=1");
      expect(response.status).toBe(200);
      expect(response.body.value.map((r: Json) => r.Risk_Id)).toEqual([1008]);
    });

    it("refuses a bad query, an unknown set and an unknown key", async () => {
      const bad = await contentApi("/Risk?$filter=Bogus eq 1");
      expect(bad.status).toBe(400);
      expect(bad.body.ValidationMessages[0].MessageKey).toBe("InvalidQuery");
      expect((await contentApi("/Risk?$top=1001")).status).toBe(400);
      expect((await contentApi("/Nothing_Here")).status).toBe(404);
      expect((await contentApi("/Risk(999999)")).status).toBe(404);
      expect((await contentApi("/Policy(1002)")).status).toBe(404);
      expect((await contentApi("/Risk(abc)")).status).toBe(400);
    });

    it("authenticates with the session cookie as with the header; 401 without either", async () => {
      const token = await raw().token();
      const cookie = await raw().call("/contentapi/Risk(1002)", {
        ...root,
        headers: { cookie: `other=1; __PlatformSessionCookie__=${token}` },
      });
      expect(cookie.status).toBe(200);
      expect(cookie.body.value[0].Risk_Id).toBe(1002);
      const none = await raw().call("/contentapi/", root);
      expect(none.status).toBe(401);
      const wrong = await raw().call("/contentapi/", {
        ...root,
        headers: { cookie: `__PlatformSessionCookie__=${"0".repeat(32)}` },
      });
      expect(wrong.status).toBe(401);
    });

    it("shows only records the caller may read", async () => {
      const token = await raw().token("dpatel", DEMO_PASSWORD);
      const list = await raw().call("/contentapi/Risk", { ...root, token });
      expect(list.status).toBe(200);
      expect(list.body.value).toEqual([]);
      expect((await raw().call("/contentapi/Risk(1002)", { ...root, token })).status).toBe(403);
    });

    it("reads back a record created through REST", async () => {
      const token = await raw().token();
      const name = field("risks/risk/name");
      const category = field("risks/risk/category");
      const created = await raw().call("/core/content", {
        method: "POST",
        token,
        body: {
          LevelId: name.LevelId,
          FieldContents: {
            [name.Id]: { Type: 1, Value: "Supplier insolvency", FieldId: name.Id },
            [category.Id]: {
              Type: 4,
              Value: { ValuesListIds: [valueId("risks/risk/category", "Financial")], OtherText: null },
              FieldId: category.Id,
            },
          },
        },
      });
      expect(created.status).toBe(200);
      const id = created.body.RequestedObject.Id;
      const read = await contentApi(`/Risk(${id})`);
      expect(read.body.value[0]).toMatchObject({
        Risk_Id: id,
        Risk_Name: "Supplier insolvency",
        Category: ["Financial"],
        Risk_Score: null,
      });
      const found = await contentApi(
        `/Risk?$filter=${encodeURIComponent("Risk_Name eq 'Supplier insolvency'")}`,
      );
      expect(found.body.value.map((r: Json) => r.Risk_Id)).toEqual([id]);
    });
  });

  describe("the CSRF token", () => {
    it("answers a csrf-token header and a JSON body to a session", async () => {
      const token = await raw().token();
      const response = await raw().call("/api/V2/internal/LookUp?node=root", {
        ...root,
        headers: { cookie: `__PlatformSessionCookie__=${token}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers["csrf-token"]).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(response.headers["content-type"]).toMatch(/^application\/json/);
      expect(typeof response.body).toBe("object");
      const again = await raw().call("/api/V2/internal/LookUp?node=root", { ...root, token });
      expect(again.headers["csrf-token"]).toBe(response.headers["csrf-token"]);
      const other = await raw().call("/api/V2/internal/LookUp?node=root", {
        ...root,
        token: await raw().token(),
      });
      expect(other.headers["csrf-token"]).not.toBe(response.headers["csrf-token"]);
    });

    it("needs a session", async () => {
      const response = await raw().call("/api/V2/internal/LookUp?node=root", root);
      expect(response.status).toBe(401);
      expect(response.headers["csrf-token"]).toBeUndefined();
    });
  });

  describe("groups", () => {
    it("carry DisplayName, which $select may name", async () => {
      const token = await raw().token();
      const response = await raw().read("/core/system/group?$select=Id,Name,DisplayName", token);
      expect(response.status).toBe(200);
      expect(response.body[0].RequestedObject).toEqual({ Id: 1, Name: "Everyone", DisplayName: "Everyone" });
      const one = await raw().read("/core/system/group/2", token);
      expect(one.body.RequestedObject.DisplayName).toBe("Administrators");
    });
  });

  describe("the workflow action POST", () => {
    const act = async (token: string, body: unknown) =>
      raw().call("/core/system/WorkflowAction", { method: "POST", token, body, prefix: "/api" });

    it("moves the job along the transition and answers the new node", async () => {
      const token = await raw().token();
      const response = await act(token, { ContentId: 1002, CompletionCode: 1, WorkflowNodeId: "202" });
      expect(response.status).toBe(200);
      expect(response.body.IsSuccessful).toBe(true);
      expect(response.body.RequestedObject).toMatchObject({
        WorkflowNodeId: "203",
        WorkflowNodeName: "Approved",
        JobStatus: "Completed",
      });
      const read = await raw().read("/core/system/WorkflowAction/1002", token);
      expect(read.body.RequestedObject.WorkflowNodeName).toBe("Approved");
    });

    it("refuses a stale node, an unknown code, a hidden action, no job and no access", async () => {
      const token = await raw().token();
      const stale = await act(token, { ContentId: 1012, CompletionCode: 1, WorkflowNodeId: "301" });
      expect(stale.status).toBe(400);
      expect(stale.body.ValidationMessages[0].MessageKey).toBe("WorkflowNodeMismatch");
      const code = await act(token, { ContentId: 1012, CompletionCode: 9, WorkflowNodeId: "302" });
      expect(code.status).toBe(400);
      expect(code.body.ValidationMessages[0].MessageKey).toBe("InvalidCompletionCode");
      const missing = await act(token, { ContentId: 1012 });
      expect(missing.status).toBe(400);
      const noJob = await act(token, { ContentId: 1005, CompletionCode: 1, WorkflowNodeId: "1" });
      expect(noJob.status).toBe(404);
      const unknown = await act(token, { ContentId: 999999, CompletionCode: 1, WorkflowNodeId: "1" });
      expect(unknown.status).toBe(404);
      const outsider = await raw().token("dpatel", DEMO_PASSWORD);
      expect(
        (await act(outsider, { ContentId: 1002, CompletionCode: 3, WorkflowNodeId: "203" })).status,
      ).toBe(403);
    });

    it("offers only the actions the caller could see", async () => {
      const token = await raw().token("bokafor", DEMO_PASSWORD);
      const name = field("risks/risk/name");
      const created = await raw().call("/core/content", {
        method: "POST",
        token,
        body: {
          LevelId: name.LevelId,
          FieldContents: { [name.Id]: { Type: 1, Value: "Fresh", FieldId: name.Id } },
        },
      });
      const id = created.body.RequestedObject.Id;
      const submitted = await act(token, { ContentId: id, CompletionCode: 1, WorkflowNodeId: "201" });
      expect(submitted.body.RequestedObject.WorkflowNodeName).toBe("Review");
      // Approve is for Risk Managers: a reader who is not one cannot take it.
      const approve = await act(token, { ContentId: id, CompletionCode: 1, WorkflowNodeId: "202" });
      expect(approve.status).toBe(400);
      expect(approve.body.ValidationMessages[0].MessageKey).toBe("InvalidCompletionCode");
    });
  });

  describe("paths and first contact", () => {
    it("a release from 6.5 answers every documented call under /api/core as well", async () => {
      const api = new Raw(emulator().url, "/api");
      const login = await api.login();
      expect(login.status).toBe(200);
      const token = login.body.RequestedObject.SessionToken;
      const users = await api.read("/core/system/user?$select=UserName&$top=1", token);
      expect(users.status).toBe(200);
      expect(users.body[0].RequestedObject).toEqual({ UserName: "sysadmin" });
    });

    it("the base path answers 200 with a page", async () => {
      const response = await raw().call("/", root);
      expect(response.status).toBe(200);
      expect(response.headers["content-type"]).toMatch(/^text\/html/);
    });
  });

  describe("the login answer", () => {
    it("carries the user's context beside the token", async () => {
      const response = await raw().login("anguyen", DEMO_PASSWORD);
      expect(response.body.RequestedObject).toMatchObject({
        SessionToken: expect.stringMatching(/^[0-9A-F]{32}$/),
        UserId: expect.any(Number),
        InstanceName: "Default",
        ContextType: 0,
        UserConfig: {
          TimeZoneId: expect.any(String),
          TimeZoneIdNET: expect.any(String),
          LocaleId: expect.any(String),
          LanguageId: expect.any(Number),
          DefaultHomeDashboardId: expect.any(Number),
          DefaultHomeWorkspaceId: expect.any(Number),
        },
        Translate: false,
        RequestLanguageId: expect.any(Number),
      });
    });

    it("bad credentials: RequestedObject null and LoginNotValid", async () => {
      const response = await raw().login("sysadmin", "wrong");
      expect(response.status).toBe(200);
      expect(response.body.IsSuccessful).toBe(false);
      expect(response.body.RequestedObject).toBeNull();
      expect(response.body.ValidationMessages[0].MessageKey).toBe("ValidationMessageTemplates:LoginNotValid");
    });
  });
});

describe("Content API paging", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });

  it("answers at most 1000 records without $top, naming the next page", async () => {
    const store = emulator().store;
    const name = catalogueOf(store).byGuid("fields", demoGuid("policies/section/title"));
    if (!name) throw new Error("no section title field");
    // Made in-process: 1,001 POSTs would only slow the test down.
    for (let i = 0; i < 1001; i++) {
      const body = { LevelId: name.LevelId, FieldContents: { [name.Id]: { Type: 1, Value: `S${i}` } } };
      createRecord(store, 1, postInput(body));
    }
    const token = await raw().token();
    const first = await raw().call("/contentapi/Policy_Section?$select=Policy_Section_Id", {
      ...root,
      token,
    });
    expect(first.body.value).toHaveLength(1000);
    const next: string = first.body["@odata.nextLink"];
    expect(next).toBe(`${emulator().url}/contentapi/Policy_Section?$select=Policy_Section_Id&$skip=1000`);
    const second = await raw().call(next.slice(emulator().url.length), { ...root, token });
    expect(second.body.value).toHaveLength(3);
    expect(second.body["@odata.nextLink"]).toBeUndefined();
    const top = await raw().call("/contentapi/Policy_Section?$top=1000", { ...root, token });
    expect(top.body["@odata.nextLink"]).toBeUndefined();
  });
});

describe("the same surfaces turned off (integrations: false)", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev", integrations: false });

  it("answer 404, and the interface description's calls still answer", async () => {
    const token = await raw().token();
    expect((await raw().call("/contentapi/", { ...root, token })).status).toBe(404);
    expect((await raw().call("/contentapi/Risk(1002)", { ...root, token })).status).toBe(404);
    expect((await raw().call("/api/V2/internal/LookUp?node=root", { ...root, token })).status).toBe(404);
    expect((await raw().call("/", root)).status).toBe(404);
    const list = catalogueOf(emulator().store).byGuid("fields", demoGuid("risks/risk/category"))?.Id;
    expect((await raw().read(`/core/system/valueslistvalue/valueslist/${list}`, token)).status).toBe(404);
    expect((await raw().read(`/core/system/valueslistvalue/flat/valueslist/${list}`, token)).status).toBe(
      200,
    );
    const soap = await raw().call("/ws/general.asmx/CreateUserSessionFromInstance", {
      method: "POST",
      prefix: "",
      rawBody: "userName=sysadmin&instanceName=Default&password=Password1%21",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(soap.status).toBe(404);
    expect((await new Raw(raw().url, "/api").login()).status).toBe(404);
    const workflow = await raw().call("/core/system/WorkflowAction", {
      method: "POST",
      token,
      prefix: "/api",
      body: { ContentId: 1002, CompletionCode: 1, WorkflowNodeId: "202" },
    });
    expect(workflow.status).toBe(404);
    expect((await raw().read("/core/system/WorkflowAction/1002", token, { prefix: "/api" })).status).toBe(
      200,
    );
    expect((await raw().read("/core/system/user", token)).status).toBe(200);
  });
});
