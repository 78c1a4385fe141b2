import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { contentOf } from "../../src/emulator/content/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { DEMO_PASSWORD } from "../../src/emulator/seeds/demo-users.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";

/*
 * The Content section of the seed over HTTP: both 403 rules, the SubformFieldId rule, field checks
 * by type code, the reads and their OData actions, the questionnaire target rule, the history log
 * and the data gateway. Field and level ids are looked up by GUID, as they differ per instance.
 */

function demo(emulator: () => Emulator) {
  const catalogue = () => catalogueOf(emulator().store);
  const field = (path: string) => {
    const found = catalogue().byGuid("fields", demoGuid(path));
    if (!found) throw new Error(`no field ${path}`);
    return found;
  };
  const level = (path: string) => {
    const found = catalogue().byGuid("levels", demoGuid(path));
    if (!found) throw new Error(`no level ${path}`);
    return found.Id;
  };
  /** One field content, keyed by field id, with the field's own type. */
  const fc = (path: string, value: unknown, type?: number) => {
    const f = field(path);
    return { [String(f.Id)]: { Type: type ?? f.Type, Value: value, FieldId: f.Id } };
  };
  const valueId = (path: string, name: string) =>
    field(path).ValuesListValues.find((v) => v.Name === name)?.Id as number;
  const record = (id: number) => contentOf(emulator().store).records[String(id)];
  return { field, level, fc, valueId, record, catalogue };
}

describe("content records", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const d = demo(emulator);
  const riskBody = (extra: Record<string, unknown> = {}) => ({
    LevelId: d.level("risks/risk"),
    FieldContents: { ...d.fc("risks/risk/name", "Supplier insolvency"), ...extra },
  });
  const post = async (token: string, body: unknown) =>
    raw().call("/core/content", { method: "POST", token, body });
  const put = async (token: string, body: unknown) =>
    raw().call("/core/content", { method: "PUT", token, body });
  const get = async (token: string, id: number, query = "") =>
    raw().read(`/core/content/contentid?id=${id}${query}`, token);

  it("POST creates the record and returns its id; get by id returns it", async () => {
    const token = await raw().token();
    const created = await post(token, riskBody(d.fc("risks/risk/score", 9)));
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ IsSuccessful: true, RequestedObject: { Id: expect.any(Number) } });
    const id = created.body.RequestedObject.Id;
    const read = await get(token, id);
    expect(read.status).toBe(200);
    expect(read.body.RequestedObject).toMatchObject({
      Id: id,
      LevelId: d.level("risks/risk"),
      Version: "1",
      FieldContents: { ...d.fc("risks/risk/name", "Supplier insolvency"), ...d.fc("risks/risk/score", 9) },
    });
  });

  it("POST of a record that already exists is 403, and changes nothing", async () => {
    const token = await raw().token();
    const before = structuredClone(d.record(1002));
    const again = await post(token, { ...riskBody(), Id: 1002 });
    expect(again.status).toBe(403);
    expect(again.body.IsSuccessful).toBe(false);
    expect(again.body.ValidationMessages[0].MessageKey).toBe("ContentAlreadyExists");
    expect(d.record(1002)).toEqual(before);
  });

  it("PUT takes the wrapper, changes the fields it sends and keeps the others", async () => {
    const token = await raw().token();
    const id = (await post(token, riskBody(d.fc("risks/risk/score", 4)))).body.RequestedObject.Id;
    const updated = await put(token, {
      Content: { Id: id, LevelId: d.level("risks/risk"), FieldContents: d.fc("risks/risk/score", 20) },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.RequestedObject).toEqual({ Id: id });
    const read = (await get(token, id)).body.RequestedObject;
    expect(read.Version).toBe("2");
    expect(read.FieldContents).toEqual({
      ...d.fc("risks/risk/name", "Supplier insolvency"),
      ...d.fc("risks/risk/score", 20),
    });
    const cleared = await put(token, {
      Content: { Id: id, LevelId: d.level("risks/risk"), FieldContents: d.fc("risks/risk/score", null) },
    });
    expect(cleared.status).toBe(200);
    expect((await get(token, id)).body.RequestedObject.FieldContents).toEqual(
      d.fc("risks/risk/name", "Supplier insolvency"),
    );
  });

  it("PUT of a record that does not exist is 403, and creates nothing", async () => {
    const token = await raw().token();
    const count = Object.keys(contentOf(emulator().store).records).length;
    const missing = await put(token, { Content: { ...riskBody(), Id: 987654 } });
    expect(missing.status).toBe(403);
    expect(missing.body.ValidationMessages[0].MessageKey).toBe("ContentDoesNotExist");
    expect(Object.keys(contentOf(emulator().store).records)).toHaveLength(count);
  });

  it("PUT needs the wrapper and a record id", async () => {
    const token = await raw().token();
    const bare = await put(token, { ...riskBody(), Id: 1002 });
    expect(bare.status).toBe(400);
    expect(bare.body.ValidationMessages[0].MessageKey).toBe("ContentWrapperRequired");
    const noId = await put(token, { Content: riskBody() });
    expect(noId.status).toBe(400);
    expect(noId.body.ValidationMessages[0].Description).toMatch(/Content\.Id/);
  });

  it("a record cannot change level", async () => {
    const token = await raw().token();
    const moved = await put(token, {
      Content: { Id: 1002, LevelId: d.level("findings/finding"), FieldContents: {} },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.ValidationMessages[0].MessageKey).toBe("LevelMismatch");
  });

  it("DELETE removes the record and the references other records hold to it", async () => {
    const token = await raw().token();
    const control = (
      await post(token, {
        LevelId: d.level("controls/control"),
        FieldContents: d.fc("controls/control/name", "Doomed control"),
      })
    ).body.RequestedObject.Id;
    const risk = (await post(token, riskBody(d.fc("risks/risk/controls", [control])))).body.RequestedObject
      .Id;
    const deleted = await raw().call(`/core/content/${control}`, { method: "DELETE", token, prefix: "/api" });
    expect(deleted.status).toBe(200);
    expect(deleted.body.RequestedObject).toEqual({ Id: control });
    expect((await get(token, control)).status).toBe(404);
    const field = String(d.field("risks/risk/controls").Id);
    expect((await get(token, risk)).body.RequestedObject.FieldContents[field]).toBeUndefined();
    const again = await raw().call(`/core/content/${control}`, { method: "DELETE", token });
    expect(again.status).toBe(404);
    expect((await raw().call("/core/content/abc", { method: "DELETE", token })).status).toBe(400);
  });

  it("get by id: $select keeps only the chosen fields; other options and bad ids are 400", async () => {
    const token = await raw().token();
    const selected = await get(token, 1002, "&$select=Risk_Score,Risk_Name");
    expect(selected.status).toBe(200);
    expect(selected.body.RequestedObject).toEqual({
      Id: 1002,
      LevelId: d.level("risks/risk"),
      SequentialId: 1,
      FieldContents: { ...d.fc("risks/risk/name", "Cloud provider outage"), ...d.fc("risks/risk/score", 16) },
    });
    const filtered = await get(token, 1002, "&$filter=Risk_Score eq 1");
    expect(filtered.status).toBe(400);
    expect(filtered.body.ValidationMessages[0].Description).toMatch(/^\$filter: is not allowed here/);
    expect((await get(token, 1002, "&$select=Nope")).body.ValidationMessages[0].Description).toMatch(
      /unknown field 'Nope'/,
    );
    expect((await raw().read("/core/content/contentid", token)).status).toBe(400);
    expect((await raw().read("/core/content/contentid?id=x1", token)).status).toBe(400);
    expect((await get(token, 99999)).status).toBe(404);
  });
});

describe("the SubformFieldId rule", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const d = demo(emulator);
  const comment = () => ({
    LevelId: d.level("comments/comment"),
    FieldContents: d.fc("comments/comment/text", "Looks right."),
  });
  const subformField = () => d.field("risks/risk/comments").Id;
  const post = async (token: string, body: unknown) =>
    raw().call("/core/content", { method: "POST", token, body });

  it("sub-form content without SubformFieldId is a validation failure", async () => {
    const token = await raw().token();
    const response = await post(token, comment());
    expect(response.status).toBe(400);
    expect(response.body.ValidationMessages.map((m: Json) => m.MessageKey)).toEqual([
      "SubformFieldIdRequired",
    ]);
    const nulled = await post(token, { Content: comment(), SubformFieldId: null });
    expect(nulled.status).toBe(400);
  });

  it("sub-form content with its sub-form field saves, in the wrapper or beside the record", async () => {
    const token = await raw().token();
    const wrapped = await post(token, { Content: comment(), SubformFieldId: subformField() });
    expect(wrapped.status).toBe(200);
    const beside = await post(token, {
      ...comment(),
      SubformFieldId: d.field("findings/finding/comments").Id,
    });
    expect(beside.status).toBe(200);
    const id = wrapped.body.RequestedObject.Id;
    const update = await raw().call("/core/content", {
      method: "PUT",
      token,
      body: { Content: { ...comment(), Id: id }, SubformFieldId: subformField() },
    });
    expect(update.status).toBe(200);
    const withoutIt = await raw().call("/core/content", {
      method: "PUT",
      token,
      body: { Content: { ...comment(), Id: id } },
    });
    expect(withoutIt.status).toBe(400);
    expect(withoutIt.body.ValidationMessages[0].MessageKey).toBe("SubformFieldIdRequired");
  });

  it("SubformFieldId on content that is not sub-form content is a validation failure", async () => {
    const token = await raw().token();
    const risk = {
      LevelId: d.level("risks/risk"),
      FieldContents: d.fc("risks/risk/name", "Not a comment"),
    };
    const response = await post(token, { Content: risk, SubformFieldId: subformField() });
    expect(response.status).toBe(400);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("SubformFieldIdNotAllowed");
    const update = await raw().call("/core/content", {
      method: "PUT",
      token,
      body: { Content: { ...risk, Id: 1002 }, SubformFieldId: subformField() },
    });
    expect(update.status).toBe(400);
    expect(update.body.ValidationMessages[0].MessageKey).toBe("SubformFieldIdNotAllowed");
  });

  it("SubformFieldId must name a sub-form field of that sub-form", async () => {
    const token = await raw().token();
    const response = await post(token, { Content: comment(), SubformFieldId: d.field("risks/risk/name").Id });
    expect(response.status).toBe(400);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("InvalidSubformFieldId");
  });
});

describe("field contents are checked by type code", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const d = demo(emulator);

  /** [level, field path, good value, value read back, bad value, problem] */
  const cases: Array<[string, string, () => unknown, () => unknown, unknown, RegExp]> = [
    ["risks/risk", "risks/risk/description", () => "Text", () => "Text", { a: 1 }, /must be text/],
    ["risks/risk", "risks/risk/score", () => 7.5, () => 7.5, "high", /must be a number/],
    [
      "risks/risk",
      "risks/risk/identified",
      () => "2028-02-29T10:00:00Z",
      () => "2028-02-29T10:00:00Z",
      "2026-02-29",
      /ISO 8601/,
    ],
    [
      "risks/risk",
      "risks/risk/category",
      () => ({ ValuesListIds: [d.valueId("risks/risk/category", "Financial")], OtherText: null }),
      () => ({ ValuesListIds: [d.valueId("risks/risk/category", "Financial")], OtherText: null }),
      { ValuesListIds: [1], OtherText: null },
      /not values of this field's list/,
    ],
    [
      "risks/risk",
      "risks/risk/impact",
      () => ({ valueslistids: [String(d.valueId("risks/risk/impact", "Minor"))], othertext: "see notes" }),
      () => ({ ValuesListIds: [d.valueId("risks/risk/impact", "Minor")], OtherText: "see notes" }),
      { ValuesListIds: [], OtherText: 5 },
      /OtherText must be a string or null/,
    ],
    [
      "vendors/vendor",
      "vendors/vendor/website",
      () => [{ URL: "https://example.com/a" }],
      () => [{ Name: "https://example.com/a", URL: "https://example.com/a" }],
      [{ Name: "x", URL: "javascript:alert(1)" }],
      /http, https, ftp or mailto/,
    ],
    [
      "risks/risk",
      "risks/risk/owner",
      () => ({ UserList: [{ ID: 1 }], GroupList: [{ Id: 2 }] }),
      () => ({ UserList: [{ Id: 1 }], GroupList: [{ Id: 2 }] }),
      { UserList: [{ Id: 4242 }] },
      /user 4242 does not exist/,
    ],
    [
      "risks/risk",
      "risks/risk/controls",
      () => [1003],
      () => [{ ContentId: 1003, LevelId: d.level("controls/control") }],
      [1002],
      /which this field does not reference/,
    ],
    [
      "risks/risk",
      "risks/risk/controls",
      () => [{ contentid: "1004", LevelId: d.level("controls/control") }, 1003, { ContentId: 1004 }],
      () => [
        { ContentId: 1004, LevelId: d.level("controls/control") },
        { ContentId: 1003, LevelId: d.level("controls/control") },
      ],
      [{ ContentId: 1003, LevelId: 999999 }],
      /content 1003 is in level \d+, not 999999/,
    ],
    ["risks/risk", "risks/risk/documents", () => [1], () => [1], [999], /attachment 999 does not exist/],
    ["vendors/vendor", "vendors/vendor/logo", () => [1], () => [1], ["x"], /item 0 is not a valid id/],
    [
      "vendor-assessment/assessment",
      "vendor-assessment/assessment/matrix",
      () => [{ Row: "Backups", Column: "Tested" }],
      () => [{ Row: "Backups", Column: "Tested" }],
      [{ Row: "Backups" }],
      /non-empty Row and Column/,
    ],
    [
      "vendors/vendor",
      "vendors/vendor/ip-range",
      () => "10.0.0.1",
      () => "10.0.0.1",
      "10.0.0.256",
      /IPv4 or IPv6/,
    ],
    ["policies/policy", "policies/policy/sections", () => [1006], () => [1006], [1002], /does not reference/],
    [
      "risks/risk",
      "risks/risk/comments",
      () => [1009],
      () => [1009],
      [1003],
      /not content of this field's sub-form/,
    ],
  ];

  const required: Record<string, [string, unknown]> = {
    "risks/risk": ["risks/risk/name", "Typed"],
    "vendors/vendor": ["vendors/vendor/name", "Typed vendor"],
    "vendor-assessment/assessment": ["vendor-assessment/assessment/target", [1001]],
    "policies/policy": ["policies/policy/name", "Typed policy"],
  };
  const bodyFor = (levelPath: string, path: string, value: unknown) => {
    const [requiredPath, requiredValue] = required[levelPath] as [string, unknown];
    return {
      LevelId: d.level(levelPath),
      FieldContents: { ...d.fc(requiredPath, requiredValue), ...d.fc(path, value) },
    };
  };

  it.each(cases)(
    "%s %s: a good value is stored in its shape, a bad one is a 400 naming the field",
    async (levelPath, path, good, readBack, bad, problem) => {
      const token = await raw().token();
      const created = await raw().call("/core/content", {
        method: "POST",
        token,
        body: bodyFor(levelPath, path, good()),
      });
      expect(created.status, created.text).toBe(200);
      const read = await raw().read(`/core/content/contentid?id=${created.body.RequestedObject.Id}`, token);
      expect(read.body.RequestedObject.FieldContents[String(d.field(path).Id)].Value).toEqual(readBack());
      const refused = await raw().call("/core/content", {
        method: "POST",
        token,
        body: bodyFor(levelPath, path, bad),
      });
      expect(refused.status).toBe(400);
      expect(refused.body.IsSuccessful).toBe(false);
      const [first] = refused.body.ValidationMessages;
      expect(first.MessageKey).toBe("InvalidFieldValue");
      expect(first.Description).toContain(`FieldContents.${d.field(path).Id}.Value (${d.field(path).Name})`);
      expect(first.Description).toMatch(problem);
    },
  );

  it("a field of another level, an unknown field, a wrong Type and an empty required field are all listed", async () => {
    const token = await raw().token();
    const response = await raw().call("/core/content", {
      method: "POST",
      token,
      body: {
        LevelId: d.level("risks/risk"),
        FieldContents: {
          ...d.fc("controls/control/name", "Wrong level"),
          ...d.fc("risks/risk/score", 5, 1),
          "999999": { Type: 1, Value: "x", FieldId: 999999 },
          abc: { Type: 1, Value: "x" },
        },
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.ValidationMessages.map((m: Json) => m.MessageKey).sort()).toEqual(
      [
        "FieldNotOnLevel",
        "FieldNotFound",
        "FieldTypeMismatch",
        "InvalidFieldId",
        "RequiredFieldMissing",
      ].sort(),
    );
  });

  it("an unknown level, a missing LevelId and a FieldId that differs from its key are validation failures", async () => {
    const token = await raw().token();
    const unknown = await raw().call("/core/content", {
      method: "POST",
      token,
      body: { LevelId: 4242, FieldContents: {} },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.ValidationMessages[0].MessageKey).toBe("LevelNotFound");
    const noLevel = await raw().call("/core/content", { method: "POST", token, body: { FieldContents: {} } });
    expect(noLevel.status).toBe(400);
    expect(noLevel.body.ValidationMessages[0].Description).toMatch(/^LevelId: /);
    const name = d.field("risks/risk/name");
    const mismatch = await raw().call("/core/content", {
      method: "POST",
      token,
      body: {
        LevelId: d.level("risks/risk"),
        FieldContents: { [name.Id]: { Type: 1, Value: "x", FieldId: 1 } },
      },
    });
    expect(mismatch.body.ValidationMessages.map((m: Json) => m.MessageKey)).toContain("FieldIdMismatch");
  });
});

describe("reads by reference field and field content", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const d = demo(emulator);
  const byRef = (token: string, id: number, query = "") =>
    raw().read(`/core/content/referencefield/referencefieldid?id=${id}${query}`, token);
  const ids = (response: { body: Json }) => response.body.map((e: Json) => e.RequestedObject.Id);

  it("a regular cross-reference returns the record lookup content: the referenced level's records", async () => {
    const token = await raw().token();
    const response = await byRef(token, d.field("risks/risk/controls").Id);
    expect(response.status).toBe(200);
    const controls = Object.values(contentOf(emulator().store).records)
      .filter((r) => r.LevelId === d.level("controls/control"))
      .map((r) => r.Id);
    expect(ids(response)).toEqual(controls);
    expect(controls.length).toBeGreaterThan(1);
  });

  it("takes $filter (eq ne gt lt, and or), $orderby asc/desc, $top, $skip and $select", async () => {
    const token = await raw().token();
    const risks = d.field("findings/finding/related").Id; // risks and controls
    const high = await byRef(
      token,
      risks,
      "&$filter=Risk_Score gt 10 or Control_Name eq 'AC-2 Account management'",
    );
    expect(ids(high)).toEqual([1002, 1004]);
    const both = await byRef(token, risks, "&$filter=Risk_Score lt 20 and Risk_Score ne 16");
    expect(ids(both)).toEqual([1008]);
    const ordered = await byRef(
      token,
      risks,
      `&$filter=LevelId eq ${d.level("risks/risk")}&$orderby=Risk_Score desc`,
    );
    expect(ids(ordered)).toEqual([1002, 1008]);
    const asc = await byRef(
      token,
      risks,
      `&$filter=LevelId eq ${d.level("risks/risk")}&$orderby=Risk_Score asc`,
    );
    expect(ids(asc)).toEqual([1008, 1002]);
    const page = await byRef(token, risks, "&$orderby=Id&$skip=1&$top=2");
    expect(ids(page)).toEqual([1003, 1004]);
    const valuesList = await byRef(token, risks, "&$filter=Category eq 'technology'&$select=Risk_Name");
    expect(valuesList.body.map((e: Json) => e.RequestedObject)).toEqual([
      {
        Id: 1002,
        LevelId: d.level("risks/risk"),
        SequentialId: 1,
        FieldContents: d.fc("risks/risk/name", "Cloud provider outage"),
      },
    ]);
  });

  it.each([
    ["$filter=Risk_Score eq 'x'", /^\$filter: 'Risk_Score' is a number/],
    ["$filter=Risk_Score eq", /^\$filter: the expression ends/],
    ["$filter=Related_Controls eq 1", /^\$filter: 'Related_Controls' cannot be compared/],
    ["$orderby=Risk_Score sideways", /^\$orderby: /],
    ["$top=1001", /^\$top: must be at most 1000/],
    ["$skip=-1", /^\$skip: /],
    ["$expand=x", /^\$expand: is not supported/],
  ])("a malformed query (%s) is a 400 envelope naming the problem", async (query, problem) => {
    const token = await raw().token();
    const response = await byRef(token, d.field("findings/finding/related").Id, `&${query}`);
    expect(response.status).toBe(400);
    expect(response.body.IsSuccessful).toBe(false);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("InvalidQuery");
    expect(response.body.ValidationMessages[0].Description).toMatch(problem);
  });

  it("a field that is not a reference is 400, an unknown one 404", async () => {
    const token = await raw().token();
    expect((await byRef(token, d.field("risks/risk/name").Id)).status).toBe(400);
    expect((await byRef(token, 999999)).status).toBe(404);
  });

  it("field content: the named fields of the named records, with OData", async () => {
    const token = await raw().token();
    const name = d.field("risks/risk/name").Id;
    const score = d.field("risks/risk/score").Id;
    const response = await raw().read("/core/content/fieldcontent", token, {
      body: { FieldIds: [name, score], ContentIds: [1008, 1002, 1003] },
    });
    expect(response.status).toBe(200);
    expect(response.body.map((e: Json) => e.RequestedObject.FieldContents)).toEqual([
      { ...d.fc("risks/risk/name", "Privileged access misuse"), ...d.fc("risks/risk/score", 10) },
      { ...d.fc("risks/risk/name", "Cloud provider outage"), ...d.fc("risks/risk/score", 16) },
      {},
    ]);
    const filtered = await raw().read(
      "/core/content/fieldcontent?$filter=Risk_Score gt 12&$select=Risk_Name",
      token,
      {
        body: { FieldIds: [name, score], ContentIds: [1008, 1002] },
      },
    );
    expect(filtered.body.map((e: Json) => e.RequestedObject)).toEqual([
      {
        Id: 1002,
        LevelId: d.level("risks/risk"),
        SequentialId: 1,
        FieldContents: d.fc("risks/risk/name", "Cloud provider outage"),
      },
    ]);
  });

  it("field content: unknown ids, an empty ContentIds and a missing body are 400", async () => {
    const token = await raw().token();
    const unknown = await raw().read("/core/content/fieldcontent", token, {
      body: { FieldIds: [999999], ContentIds: [424242] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.ValidationMessages.map((m: Json) => m.MessageKey)).toEqual([
      "FieldNotFound",
      "ContentNotFound",
    ]);
    const empty = await raw().read("/core/content/fieldcontent", token, {
      body: { FieldIds: [d.field("risks/risk/name").Id], ContentIds: [] },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.ValidationMessages[0].Description).toMatch(/ContentIds/);
    expect((await raw().read("/core/content/fieldcontent", token)).status).toBe(400);
  });
});

describe("the questionnaire target rule of get by reference field", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const d = demo(emulator);

  /** Adds a second level to Third Parties and a regular cross-reference to its first level. */
  function extendCatalogue(): { contactLevel: number; regularField: number } {
    const catalogue = d.catalogue();
    const vendorLevel = catalogue.level(d.level("vendors/vendor"))!;
    const contactLevel = catalogue.put("levels", {
      ...vendorLevel,
      Id: catalogue.nextId("levels"),
      Guid: "11111111-2222-4333-8444-555555555555",
      Name: "Vendor Contact",
      Alias: "Vendor_Contact",
    });
    const template = d.field("vendors/vendor/name");
    catalogue.put("fields", {
      ...template,
      Id: catalogue.nextId("fields"),
      Guid: "11111111-2222-4333-8444-555555555556",
      Alias: "Contact_Name",
      Name: "Contact Name",
      LevelId: contactLevel.Id,
      IsRequired: false,
    });
    const regular = catalogue.put("fields", {
      ...d.field("findings/finding/control"),
      Id: catalogue.nextId("fields"),
      Guid: "11111111-2222-4333-8444-555555555557",
      Alias: "Vendor",
      Name: "Vendor",
      ReferencedLevelIds: [vendorLevel.Id],
    });
    return { contactLevel: contactLevel.Id, regularField: regular.Id };
  }

  it("a questionnaire's target cross-reference returns all content of the target application; a regular one only the lookup", async () => {
    const token = await raw().token();
    const { contactLevel, regularField } = extendCatalogue();
    const contact = await raw().call("/core/content", {
      method: "POST",
      token,
      body: { LevelId: contactLevel, FieldContents: {} },
    });
    expect(contact.status, contact.text).toBe(200);
    const contactId = contact.body.RequestedObject.Id;
    const target = d
      .catalogue()
      .all("modules")
      .find((m) => m.Type === "Questionnaire")?.TargetFieldId as number;
    expect(target).toBe(d.field("vendor-assessment/assessment/target").Id);

    const all = await raw().read(`/core/content/referencefield/referencefieldid?id=${target}`, token);
    expect(all.body.map((e: Json) => e.RequestedObject.Id)).toEqual([1001, 1011, contactId]);
    const lookup = await raw().read(
      `/core/content/referencefield/referencefieldid?id=${regularField}`,
      token,
    );
    expect(lookup.body.map((e: Json) => e.RequestedObject.Id)).toEqual([1001, 1011]);
  });
});

describe("history log", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const d = demo(emulator);
  const history = (token: string, id: number, prefix?: string) =>
    raw().read(`/core/content/history/${id}`, token, prefix ? { prefix } : {});

  it("answers one item per history-log field, newest entry first, under both prefixes", async () => {
    const token = await raw().token();
    const response = await history(token, 1002, "/api");
    expect(response.status).toBe(200);
    const items = response.body.map((e: Json) => e.RequestedObject);
    expect(items.map((i: Json) => i.FieldName)).toEqual(["Assessment History", "Treatment History"]);
    const assessment = items[0];
    expect(assessment.Entries.map((e: Json) => e.Action)).toEqual(["Updated", "Created"]);
    expect(assessment.Entries[0]).toMatchObject({
      UserName: "anguyen",
      Changes: [
        {
          FieldName: "Likelihood",
          OldValue: { ValuesListIds: [d.valueId("risks/risk/likelihood", "Unlikely")] },
        },
        { FieldName: "Risk Score", OldValue: 12, NewValue: 16 },
      ],
    });
    expect((await history(token, 1002)).body).toEqual(response.body);
  });

  it("a history-log field with no content is an empty item; an application without history-log fields an empty answer", async () => {
    const token = await raw().token();
    const created = await raw().call("/core/content", {
      method: "POST",
      token,
      body: {
        LevelId: d.level("risks/risk"),
        FieldContents: { ...d.fc("risks/risk/name", "No treatment yet"), ...d.fc("risks/risk/score", 3) },
      },
    });
    const id = created.body.RequestedObject.Id;
    const items = (await history(token, id)).body.map((e: Json) => e.RequestedObject);
    expect(items).toEqual([
      expect.objectContaining({
        FieldName: "Assessment History",
        Entries: [expect.objectContaining({ Action: "Created" })],
      }),
      { ContentId: id, FieldId: expect.any(Number), FieldName: "Treatment History", Entries: [] },
    ]);
    const policy = await history(token, 1005);
    expect(policy.status).toBe(200);
    expect(policy.body).toEqual([]);
  });

  it("an update appends to the logs that track a changed field, and only those", async () => {
    const token = await raw().token();
    await raw().call("/core/content", {
      method: "PUT",
      token,
      body: {
        Content: {
          Id: 1008,
          LevelId: d.level("risks/risk"),
          FieldContents: d.fc("risks/risk/description", "x"),
        },
      },
    });
    const untouched = (await history(token, 1008)).body.map((e: Json) => e.RequestedObject.Entries.length);
    await raw().call("/core/content", {
      method: "PUT",
      token,
      body: {
        Content: { Id: 1008, LevelId: d.level("risks/risk"), FieldContents: d.fc("risks/risk/score", 11) },
      },
    });
    const after = (await history(token, 1008)).body.map((e: Json) => e.RequestedObject.Entries.length);
    expect(after).toEqual([untouched[0] + 1, untouched[1]]);
  });

  it("an unknown record is 404, a bad id 400, a query option 400", async () => {
    const token = await raw().token();
    expect((await history(token, 999999)).status).toBe(404);
    expect((await raw().read("/core/content/history/x", token)).status).toBe(400);
    expect((await raw().read("/core/content/history/1002?$top=1", token)).status).toBe(400);
  });
});

describe("data gateway", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const d = demo(emulator);
  const notify = (token: string, body: unknown) =>
    raw().call("/core/content/externalContentChangeNotification", { method: "PUT", token, body });

  it("on success answers a validation message reporting success and saves the content", async () => {
    const token = await raw().token();
    const score = String(d.field("risks/risk/score").Id);
    const before = d.record(1002)?.Version;
    const response = await notify(token, {
      Alias: "ExternalRiskStore",
      ContentPartIds: ["1002"],
      ExternalFieldIds: [score],
    });
    expect(response.status).toBe(200);
    expect(response.body.IsSuccessful).toBe(true);
    expect(response.body.ValidationMessages).toEqual([
      expect.objectContaining({
        MessageKey: "ExternalContentSaved",
        Description: expect.stringMatching(/Saved 1 content record\(s\) \(1002\).*'ExternalRiskStore'/),
      }),
    ]);
    expect(d.record(1002)?.Version).toBe(String(Number(before) + 1));
    const history = await raw().read("/core/content/history/1002", token);
    expect(history.body[0].RequestedObject.Entries[0]).toMatchObject({
      Action: "ExternalChange",
      Changes: [{ FieldId: Number(score), OldValue: 16, NewValue: 16 }],
    });
  });

  it("on failure answers validation messages naming every problem and saves nothing", async () => {
    const token = await raw().token();
    const before = d.record(1002)?.Version;
    const response = await notify(token, {
      Alias: " ",
      ContentPartIds: ["1002", "424242", "abc"],
      ExternalFieldIds: [String(d.field("controls/control/name").Id), "zz"],
    });
    expect(response.status).toBe(400);
    expect(response.body.IsSuccessful).toBe(false);
    expect(response.body.ValidationMessages.map((m: Json) => m.MessageKey)).toEqual([
      "AliasRequired",
      "ContentNotFound",
      "ContentNotFound",
      "ExternalFieldNotFound",
      "ExternalFieldNotFound",
    ]);
    expect(d.record(1002)?.Version).toBe(before);
  });

  it("empty lists and a missing body are validation failures", async () => {
    const token = await raw().token();
    const empty = await notify(token, { Alias: "x", ContentPartIds: [], ExternalFieldIds: ["1"] });
    expect(empty.status).toBe(400);
    expect(empty.body.ValidationMessages[0].Description).toMatch(/^ContentPartIds: /);
    expect((await notify(token, undefined)).status).toBe(400);
  });
});

describe("read permission on records", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const d = demo(emulator);

  it("a user who is neither owner nor named gets 403 on get, put and delete, and is left out of lists", async () => {
    const token = await raw().token("dpatel", DEMO_PASSWORD);
    expect((await raw().read("/core/content/contentid?id=1002", token)).status).toBe(403);
    const put = await raw().call("/core/content", {
      method: "PUT",
      token,
      body: { Content: { Id: 1002, LevelId: d.level("risks/risk"), FieldContents: {} } },
    });
    expect(put.status).toBe(403);
    expect((await raw().call("/core/content/1002", { method: "DELETE", token })).status).toBe(403);
    const lookup = await raw().read(
      `/core/content/referencefield/referencefieldid?id=${d.field("findings/finding/related").Id}`,
      token,
    );
    expect(lookup.status).toBe(200);
    expect(lookup.body).toEqual([]);
  });

  it("a member of a group named in a users/groups field reads the record; a creator reads their own", async () => {
    const bob = await raw().token("bokafor", DEMO_PASSWORD);
    expect((await raw().read("/core/content/contentid?id=1002", bob)).status).toBe(200);
    const dev = await raw().token("dpatel", DEMO_PASSWORD);
    const created = await raw().call("/core/content", {
      method: "POST",
      token: dev,
      body: { LevelId: d.level("policies/section"), FieldContents: d.fc("policies/section/title", "Mine") },
    });
    expect(created.status).toBe(200);
    const id = created.body.RequestedObject.Id;
    expect((await raw().read(`/core/content/contentid?id=${id}`, dev)).status).toBe(200);
    expect((await raw().read(`/core/content/contentid?id=${id}`, bob)).status).toBe(403);
  });
});
