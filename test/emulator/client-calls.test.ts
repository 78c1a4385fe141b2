import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { parseXml } from "../../src/emulator/soap/xml.ts";
import { type Json, type Raw, useEmulator } from "../helpers/raw.ts";
import { all, post } from "../helpers/soap.ts";

/*
 * Calls beyond the interface description, each in the shape a public client sends and reads
 * (docs/emulator.md, "Beyond the interface description"), over real HTTP.
 */

const root = { prefix: "" };
const requested = (response: { body: Json }) => response.body.map((e: Json) => e.RequestedObject);

async function createRisk(raw: Raw, token: string, catalogue: ReturnType<typeof catalogueOf>, name: string) {
  const level = catalogue.byGuid("levels", demoGuid("risks/risk"))?.Id;
  const field = catalogue.byGuid("fields", demoGuid("risks/risk/name"))?.Id as number;
  const created = await raw.call("/core/content", {
    method: "POST",
    token,
    body: {
      Content: { LevelId: level, FieldContents: { [field]: { Type: 1, Value: name, FieldId: field } } },
    },
  });
  expect(created.status, created.text).toBe(200);
  return created.body.RequestedObject.Id as number;
}

describe("calls public clients make beyond the description (demo-dev)", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const catalogue = () => catalogueOf(emulator().store);

  it("flat values-list values by list id: the active values, as a client keeps them", async () => {
    const token = await raw().token();
    const field = catalogue().byGuid("fields", demoGuid("risks/risk/category"));
    const definition = (await raw().read(`/core/system/fielddefinition/${field?.Id}`, token)).body
      .RequestedObject;
    const values = requested(
      await raw().call(`/core/system/valueslistvalue/flat/valueslist/${definition.RelatedValuesListId}`, {
        token,
      }),
    );
    // A client keeps the values it may offer: active and selectable ones.
    const offered = values.filter((v: Json) => v.IsActive && v.IsSelectable).map((v: Json) => v.Name);
    expect(offered).toEqual(field?.ValuesListValues.map((v) => v.Name));
    expect(offered.length).toBeGreaterThan(0);
    const filtered = await raw().call(
      `/core/system/valueslistvalue/flat/valueslist/${definition.RelatedValuesListId}?$filter=${encodeURIComponent("IsActive eq true")}`,
      { token },
    );
    expect(requested(filtered).map((v: Json) => v.Name)).toEqual(offered);
  });

  it("the workflow action POST moves a REST-created record's job from the node it is at", async () => {
    const token = await raw().token();
    const id = await createRisk(raw(), token, catalogue(), "Workflow from a client");
    const read = (await raw().call(`/core/system/WorkflowAction/${id}`, { token })).body.RequestedObject;
    expect(read.WorkflowNodeName).toBe("Draft");
    const action = read.Actions[0];
    const moved = await raw().call("/core/system/WorkflowAction", {
      method: "POST",
      token,
      body: { ContentId: id, CompletionCode: action.CompletionCode, WorkflowNodeId: read.WorkflowNodeId },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.RequestedObject.WorkflowNodeName).toBe("Review");
    const again = await raw().call(`/core/system/WorkflowAction/${id}`, { token, prefix: "/api" });
    expect(again.body.RequestedObject.WorkflowNodeName).toBe("Review");
  });

  it("the Content API reads a REST-created record by key under the application's name", async () => {
    const token = await raw().token();
    const id = await createRisk(raw(), token, catalogue(), "Read through the Content API");
    const sets = (await raw().call("/contentapi/", { ...root, token })).body.value.map((s: Json) => s.name);
    expect(sets).toContain("Risk_Register");
    const response = await raw().call(`/contentapi/Risk_Register(${id})`, { ...root, token });
    expect(response.status, response.text).toBe(200);
    expect(response.body["@odata.context"]).toBe(`${emulator().url}/contentapi/$metadata#Risk_Register`);
    expect(response.body.value).toEqual([
      expect.objectContaining({ Risk_Register_Id: id, Risk_Name: "Read through the Content API" }),
    ]);
    const level = await raw().call(`/contentapi/Risk(${id})`, { ...root, token });
    expect(level.body.value[0]).toMatchObject({ Risk_Id: id });
  });

  it("the Content API reads another application's record by key", async () => {
    const token = await raw().token();
    const response = await raw().call("/contentapi/Findings(1012)", { ...root, token });
    expect(response.status, response.text).toBe(200);
    expect(response.body.value[0]).toMatchObject({ Findings_Id: 1012 });
    const listed = await raw().call("/contentapi/Findings?$select=Findings_Id", { ...root, token });
    expect(listed.body.value).toEqual([{ Findings_Id: 1012 }, { Findings_Id: 1013 }]);
  });

  it("SearchRecordsByReport in the form binding answers the Records document inside the string", async () => {
    const token = await raw().token();
    const report = catalogue().all("reports")[0];
    const answer = await post(
      `${emulator().url}/ws/search.asmx/SearchRecordsByReport`,
      new URLSearchParams({
        sessionToken: token,
        reportIdOrGuid: String(report?.Guid),
        pageNumber: "1",
      }).toString(),
      { "content-type": "application/x-www-form-urlencoded" },
    );
    expect(answer.status, answer.text).toBe(200);
    const wrapper = parseXml(answer.text);
    expect(wrapper.local).toBe("string");
    const records = parseXml(wrapper.text);
    expect(records.local).toBe("Records");
    expect(all(records, "Record").length).toBeGreaterThan(0);
  });
});

describe("SearchRecordsByReport posted as JSON to the form binding's address", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });

  it("answers the Records document inside the string, as the form binding does", async () => {
    const token = await raw().token();
    const report = catalogueOf(emulator().store).all("reports")[0];
    const answer = await post(
      `${emulator().url}/ws/search.asmx/SearchRecordsByReport`,
      JSON.stringify({ sessionToken: token, reportIdOrGuid: report?.Guid, pageNumber: 1 }),
      { "content-type": "application/json" },
    );
    expect(answer.status, answer.text).toBe(200);
    const records = parseXml(parseXml(answer.text).text);
    expect(all(records, "Record").length).toBeGreaterThan(0);
    const nested = await post(
      `${emulator().url}/ws/search.asmx/SearchRecordsByReport`,
      JSON.stringify({ sessionToken: token, reportIdOrGuid: { Guid: report?.Guid } }),
      { "content-type": "application/json" },
    );
    expect(nested.status).toBe(500);
    expect(nested.text).toMatch(/^Request format is invalid: parameter reportIdOrGuid is not text\.$/);
  });
});

describe("an application missing from a seed (demo-prod has no Findings)", () => {
  const { raw } = useEmulator({ seed: "demo-prod" });

  it("answers 404 naming the entity set", async () => {
    const token = await raw().token();
    const response = await raw().call("/contentapi/Findings(1012)", { ...root, token });
    expect(response.status).toBe(404);
    expect(response.body.ValidationMessages[0]).toMatchObject({
      MessageKey: "EntitySetNotFound",
      ErroredValue: "Findings",
    });
    const risks = await raw().call("/contentapi/Risk_Register?$top=1", { ...root, token });
    expect(risks.status).toBe(200);
  });
});
