import { describe, expect, it } from "vitest";
import { catalogueOf, type FieldRecord } from "../../src/emulator/catalogue/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { parseXml } from "../../src/emulator/soap/xml.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import { all, find, resultOf, soap11 } from "../helpers/soap.ts";

/*
 * One record through every surface: created through REST, found by the web services' ExecuteSearch,
 * read through the Content API, and its values-list field's names agree with the hierarchical
 * values-list read; over real HTTP.
 */

interface TreeNode {
  Data: { Id: number; Name: string };
  Children: TreeNode[];
}

const flatten = (nodes: TreeNode[]): TreeNode["Data"][] =>
  nodes.flatMap((node) => [node.Data, ...flatten(node.Children ?? [])]);

describe("a record created through REST, through every surface", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const field = (path: string): FieldRecord => {
    const found = catalogueOf(emulator().store).byGuid("fields", demoGuid(path));
    if (!found) throw new Error(`no field ${path}`);
    return found;
  };

  it("is found by ExecuteSearch and read by the Content API, with the values-list tree's names", async () => {
    const name = field("risks/risk/name");
    const category = field("risks/risk/category");
    const moduleId = catalogueOf(emulator().store).level(name.LevelId)?.ModuleId;
    const token = await raw().token();

    const created = await raw().call("/core/content", {
      method: "POST",
      token,
      body: {
        LevelId: name.LevelId,
        FieldContents: {
          [name.Id]: { Type: 1, Value: "Data centre flood", FieldId: name.Id },
          [category.Id]: { Type: 4, Value: { ValuesListIds: ["Operational"], OtherText: null } },
        },
      },
    });
    expect(created.status, created.text).toBe(200);
    const contentId: number = created.body.RequestedObject.Id;

    const options =
      `<SearchReport><PageSize>10</PageSize><DisplayFields><DisplayField>${name.Id}</DisplayField><DisplayField>${category.Id}</DisplayField></DisplayFields>` +
      `<Criteria><ModuleCriteria><Module>${moduleId}</Module></ModuleCriteria><Filter><Conditions>` +
      `<TextFilterCondition><Operator>Equals</Operator><Field>${name.Id}</Field><Value>Data centre flood</Value></TextFilterCondition>` +
      "</Conditions></Filter></Criteria></SearchReport>";
    const searched = parseXml(
      await resultOf(
        soap11(emulator().url, "search", "ExecuteSearch", {
          sessionToken: token,
          searchOptions: options,
          pageNumber: "1",
        }),
        "ExecuteSearch",
      ),
    );
    const rows = all(searched, "Record");
    expect(rows.map((r) => r.attributes.contentId)).toEqual([String(contentId)]);
    const fromSearch = all(rows[0] ?? searched, "ListValue").map((v) => v.attributes.displayName);

    const read = await raw().call(`/contentapi/Risk(${contentId})`, { prefix: "", token });
    expect(read.status, read.text).toBe(200);
    const entity = read.body.value[0];
    expect(entity).toMatchObject({ Risk_Id: contentId, Risk_Name: "Data centre flood" });

    const tree = await raw().read(`/core/system/valueslistvalue/valueslist/${category.Id}`, token);
    expect(tree.status, tree.text).toBe(200);
    const values = flatten(tree.body.RequestedObject.Children);
    const chosen = values.filter((v) => v.Name === "Operational");
    expect(chosen).toHaveLength(1);

    expect(entity.Category).toEqual(["Operational"]);
    expect(fromSearch).toEqual(["Operational"]);
    const ids = all(rows[0] ?? searched, "ListValue").map((v) => Number(v.attributes.id));
    expect(ids).toEqual(chosen.map((v) => v.Id));
    const stored = await raw().read(`/core/content/contentid?id=${contentId}`, token);
    const value = (stored.body as Json).RequestedObject.FieldContents[category.Id].Value;
    expect(value.ValuesListIds).toEqual(chosen.map((v) => v.Id));
    expect(find(searched, "Record")).toBeDefined();
  });
});
