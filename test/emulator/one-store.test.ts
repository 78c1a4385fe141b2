import { describe, expect, it } from "vitest";
import { catalogueOf, type FieldRecord } from "../../src/emulator/catalogue/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { parseXml, type XmlElement } from "../../src/emulator/soap/xml.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import { all, find, resultOf, soap11 } from "../helpers/soap.ts";

/*
 * REST and the web services answer from one store: a record created through REST, its values-list
 * field set by value name, is found by `ExecuteSearch`, and the names the search shows agree with
 * the hierarchical values-list read and with `GetValueListForField`.
 */

describe("one store behind REST and the web services", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const field = (path: string): FieldRecord => {
    const found = catalogueOf(emulator().store).byGuid("fields", demoGuid(path));
    if (!found) throw new Error(`no field ${path}`);
    return found;
  };

  it("a record created by REST is found by ExecuteSearch, with the values-list names of both reads", async () => {
    const name = field("risks/risk/name");
    const category = field("risks/risk/category");
    const moduleId = catalogueOf(emulator().store).level(name.LevelId)?.ModuleId;

    // A session of the web services works on REST.
    const token = await resultOf(
      soap11(emulator().url, "general", "CreateUserSessionFromInstance", {
        userName: "sysadmin",
        instanceName: "Default",
        password: "Password1!",
      }),
      "CreateUserSessionFromInstance",
    );
    const created = await raw().call("/core/content", {
      method: "POST",
      token,
      body: {
        Content: {
          LevelId: name.LevelId,
          FieldContents: {
            [name.Id]: { Type: 1, Value: "Supplier insolvency", FieldId: name.Id },
            [category.Id]: {
              Type: 4,
              Value: { ValuesListIds: ["Financial"], OtherText: null },
              FieldId: category.Id,
            },
          },
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const contentId = String((created.body as Json).RequestedObject.Id);

    const options =
      `<SearchReport><PageSize>10</PageSize><DisplayFields><DisplayField>${name.Id}</DisplayField><DisplayField>${category.Id}</DisplayField></DisplayFields>` +
      `<Criteria><ModuleCriteria><Module>${moduleId}</Module></ModuleCriteria><Filter><Conditions>` +
      `<TextFilterCondition><Operator>Equals</Operator><Field>${name.Id}</Field><Value>Supplier insolvency</Value></TextFilterCondition>` +
      "</Conditions></Filter></Criteria></SearchReport>";
    const records = parseXml(
      await resultOf(
        soap11(emulator().url, "search", "ExecuteSearch", {
          sessionToken: token,
          searchOptions: options,
          pageNumber: "1",
        }),
        "ExecuteSearch",
      ),
    );
    const rows = all(records, "Record");
    expect(rows.map((r) => r.attributes.contentId)).toEqual([contentId]);
    const listValue = find(rows[0] as XmlElement, "ListValue");
    expect(listValue?.attributes.displayName).toBe("Financial");

    const tree = await raw().read(`/core/system/valueslistvalue/valueslist/${category.Id}`, token);
    const fromTree = tree.body.RequestedObject.Children.find((n: Json) => n.Data.Name === "Financial");
    expect(String(fromTree.Data.Id)).toBe(listValue?.attributes.id);

    const selectDef = parseXml(
      await resultOf(
        soap11(emulator().url, "field", "GetValueListForField", {
          sessionToken: token,
          fieldId: String(category.Id),
        }),
        "GetValueListForField",
      ),
    );
    const fromSoap = all(selectDef, "SelectDefValue").find((v) => find(v, "Name")?.text === "Financial");
    expect(find(fromSoap as XmlElement, "Id")?.text).toBe(listValue?.attributes.id);

    const read = await raw().read(`/core/content/contentid?id=${contentId}`, token);
    expect(read.body.RequestedObject.FieldContents[category.Id].Value.ValuesListIds).toEqual([
      fromTree.Data.Id,
    ]);
  });
});
