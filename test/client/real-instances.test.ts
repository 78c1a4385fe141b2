import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import {
  type CrossReferenceContent,
  type FieldContent,
  InvalidArgumentError,
  NotFoundError,
} from "../../src/index.ts";
import { useClientEmulator } from "./helpers/client.ts";

/*
 * The typed calls for what real instances serve beyond the seed, against demo-dev over
 * HTTP: SequentialId on records, content and reference-field reads by path id, groups, field
 * definitions by application and values-list values.
 */

describe("typed calls for reads real instances serve beyond the seed", () => {
  const { client, emulator } = useClientEmulator({ seed: "demo-dev" });
  const store = () => emulator().store;
  const idOf = async (path: string) => {
    const found = catalogueOf(store()).byGuid("fields", demoGuid(path));
    if (!found) throw new Error(`no field ${path}`);
    return found.Id;
  };

  it("records carry SequentialId, typed, in get, by reference field and field content", async () => {
    const c = client();
    const record = await c.content.get(1008);
    const sequential: number | undefined = record.SequentialId;
    expect(sequential).toBe(2);
    const controls = await idOf("risks/risk/controls");
    const rows = await c.content.byReferenceField(controls);
    expect(rows.every((row) => typeof row.SequentialId === "number" && row.SequentialId > 0)).toBe(true);
    const name = await idOf("risks/risk/name");
    const fields = await c.content.fieldContent({ FieldIds: [name], ContentIds: [1002, 1008] });
    expect(fields.map((row) => row.SequentialId)).toEqual([1, 2]);
  });

  it("getByPathId and byReferenceFieldPathId answer as get and byReferenceField", async () => {
    const c = client();
    await expect(c.content.getByPathId(1002)).resolves.toEqual(await c.content.get(1002));
    const controls = await idOf("risks/risk/controls");
    await expect(c.content.byReferenceFieldPathId(controls)).resolves.toEqual(
      await c.content.byReferenceField(controls),
    );
    await expect(c.content.getByPathId(424242)).rejects.toThrow(NotFoundError);
    await expect(c.content.getByPathId(1.5)).rejects.toThrow(InvalidArgumentError);
  });

  it("groups: list (with OData) and get; an unknown group is NotFoundError", async () => {
    const c = client();
    const groups = await c.groups.list();
    expect(groups.map((g) => [g.Id, g.Name])).toEqual([
      [1, "Everyone"],
      [2, "Administrators"],
      [3, "Risk Owners"],
      [4, "Auditors"],
    ]);
    expect(groups[0]).toMatchObject({ Description: null, Guid: expect.any(String), UpdateInformation: null });
    await expect(c.groups.get(3)).resolves.toEqual(groups[2]);
    const filtered = await c.groups.list({ filter: { field: "Name", op: "eq", value: "Auditors" } });
    expect(filtered.map((g) => g.Id)).toEqual([4]);
    await expect(c.groups.get(99)).rejects.toThrow(NotFoundError);
  });

  it("field definitions by application, and the values of a field's values list", async () => {
    const c = client();
    const risks = (await c.metadata.applications()).find((a) => a.Guid === demoGuid("risks"));
    const fields = await c.metadata.fieldDefinitionsByApplication(risks?.Id as number);
    const levels = await c.metadata.levelsByModule(risks?.Id as number);
    const byLevel = (await Promise.all(levels.map((l) => c.metadata.fieldDefinitions(l.Id)))).flat();
    expect(fields).toEqual(byLevel);
    const category = fields.find((f) => f.Guid === demoGuid("risks/risk/category"));
    const listId = category?.RelatedValuesListId;
    expect(listId).toEqual(expect.any(Number));
    const values = await c.valuesLists.values(listId as number);
    expect(values.map((v) => [v.Id, v.Name, v.ValuesListId])).toEqual(
      (category?.ValuesListValues ?? []).map((v) => [v.Id, v.Name, listId]),
    );
    await expect(c.valuesLists.values(999999)).rejects.toThrow(NotFoundError);
  });

  it("a sub-form field's definition names its sub-form as RelatedSubformId, typed", async () => {
    const c = client();
    const risks = catalogueOf(store()).byGuid("modules", demoGuid("risks"))?.Id as number;
    const fields = await c.metadata.fieldDefinitionsByApplication(risks);
    const subform = fields.find((f) => f.Type === 24);
    const related: number | null | undefined = subform?.RelatedSubformId;
    expect(related).toBe(catalogueOf(store()).byGuid("modules", demoGuid("comments"))?.Id);
    expect(fields.filter((f) => f.Type !== 24).every((f) => f.RelatedSubformId === null)).toBe(true);
  });

  it("a cross-reference value is sent and read back as {ContentId, LevelId}", async () => {
    const c = client();
    const level = (path: string) => catalogueOf(store()).byGuid("levels", demoGuid(path))?.Id as number;
    const title = await idOf("findings/finding/title");
    const control = await idOf("findings/finding/control");
    const value: CrossReferenceContent = [{ ContentId: 1003, LevelId: level("controls/control") }];
    const id = await c.content.create({
      LevelId: level("findings/finding"),
      FieldContents: {
        [title]: { Type: 1, Value: "Typed cross-reference", FieldId: title },
        [control]: { Type: 9, Value: value, FieldId: control },
      },
    });
    const read = await c.content.get(id);
    const contents = read.FieldContents as Record<string, FieldContent>;
    expect(contents[String(control)]).toEqual({ Type: 9, Value: value, FieldId: control });
  });

  it("field content with no field ids reads every field of the records", async () => {
    const c = client();
    const [risk] = await c.content.fieldContent({ FieldIds: [], ContentIds: [1002] });
    expect(risk?.FieldContents).toEqual((await c.content.get(1002)).FieldContents);
  });

  it("list reads take OData options: an application found by name is that application", async () => {
    const c = client();
    const byName = await c.metadata.applications({
      filter: { field: "Name", op: "eq", value: "Risk Register" },
    });
    expect(byName.map((a) => [a.Guid, a.Name])).toEqual([[demoGuid("risks"), "Risk Register"]]);
    const parameters = await c.securityParameters.list({
      filter: { field: "Name", op: "eq", value: "Services Parameter" },
    });
    expect(parameters.map((p) => p.Id)).toEqual([3]);
    const risks = byName[0]?.Id as number;
    const [last] = await c.metadata.fieldDefinitionsByApplication(risks, {
      orderBy: { field: "Id", direction: "desc" },
      top: 1,
    });
    const all = await c.metadata.fieldDefinitionsByApplication(risks);
    expect(last?.Id).toBe(Math.max(...all.map((f) => f.Id)));
  });
});
