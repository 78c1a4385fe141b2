import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { contentOf } from "../../src/emulator/content/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { type Json, Raw, useEmulator } from "../helpers/raw.ts";

/*
 * What real instances do where the seed is silent, and public clients rely on (docs/emulator.md "Groups, field definitions and values lists" and the Content section), over
 * real HTTP on the demo-dev seed. Ids are looked up by GUID, as they differ per instance.
 */

const requested = (response: { body: Json }) => response.body.map((e: Json) => e.RequestedObject);

describe("behaviours of real instances the seed does not state", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const catalogue = () => catalogueOf(emulator().store);
  const id = (kind: "modules" | "levels" | "fields", path: string) => {
    const found = catalogue().byGuid(kind, demoGuid(path));
    if (!found) throw new Error(`no ${kind} ${path}`);
    return found.Id;
  };

  describe("OData: a quoted number against a numeric field", () => {
    const users = async (filter: string) =>
      raw().read(
        `/core/system/user?$filter=${encodeURIComponent(filter)}&$select=UserName`,
        await raw().token(),
      );

    it("matches as the number does", async () => {
      const quoted = await users("AccountStatus eq '2' and Id le 9");
      expect(quoted.status).toBe(200);
      expect(requested(quoted)).toEqual([{ UserName: "fkim" }]);
      expect(requested(await users("Id lt '3'"))).toEqual([
        { UserName: "sysadmin" },
        { UserName: "anguyen" },
      ]);
    });

    it("a quoted non-number stays a 400 envelope", async () => {
      const response = await users("AccountStatus eq 'one'");
      expect(response.status).toBe(400);
      expect(response.body.IsSuccessful).toBe(false);
      expect(response.body.ValidationMessages[0]).toMatchObject({ MessageKey: "InvalidQuery" });
      expect(response.body.ValidationMessages[0].Description).toMatch(/'AccountStatus' is a number/);
    });
  });

  describe("field content is read by POST", () => {
    const body = () => ({ FieldIds: [id("fields", "risks/risk/name")], ContentIds: [1008, 1002] });

    it("answers a POST with the GET override, without it, and with the override POST alike", async () => {
      const token = await raw().token();
      const withGet = await raw().read("/core/content/fieldcontent", token, { body: body() });
      const plain = await raw().call("/core/content/fieldcontent", { method: "POST", token, body: body() });
      const withPost = await raw().call("/core/content/fieldcontent", {
        method: "POST",
        token,
        body: body(),
        headers: { "x-http-method-override": "POST" },
      });
      expect(withGet.status).toBe(200);
      expect(requested(withGet).map((r: Json) => r.Id)).toEqual([1008, 1002]);
      expect(plain.status).toBe(200);
      expect(plain.body).toEqual(withGet.body);
      expect(withPost.status).toBe(200);
      expect(withPost.body).toEqual(withGet.body);
    });
  });

  describe("SequentialId", () => {
    it("numbers records within their application, in every read, and is never reused", async () => {
      const token = await raw().token();
      const one = async (contentId: number) =>
        (await raw().read(`/core/content/contentid?id=${contentId}`, token)).body.RequestedObject;
      expect((await one(1002)).SequentialId).toBe(1);
      expect((await one(1008)).SequentialId).toBe(2);
      expect((await one(1001)).SequentialId).toBe(1);
      expect((await one(1011)).SequentialId).toBe(2);
      const selected = await raw().read("/core/content/contentid?id=1008&$select=Risk_Name", token);
      expect(selected.body.RequestedObject.SequentialId).toBe(2);
      const fields = await raw().read("/core/content/fieldcontent", token, {
        body: { FieldIds: [id("fields", "risks/risk/name")], ContentIds: [1008, 1002] },
      });
      expect(requested(fields).map((r: Json) => r.SequentialId)).toEqual([2, 1]);

      const create = async () =>
        (
          await raw().call("/core/content", {
            method: "POST",
            token,
            body: {
              LevelId: id("levels", "risks/risk"),
              FieldContents: {
                [id("fields", "risks/risk/name")]: {
                  Type: 1,
                  Value: "Numbered",
                  FieldId: id("fields", "risks/risk/name"),
                },
              },
            },
          })
        ).body.RequestedObject.Id as number;
      const third = await create();
      expect((await one(third)).SequentialId).toBe(3);
      await raw().call(`/core/content/${third}`, { method: "DELETE", token });
      expect((await one(await create())).SequentialId).toBe(4);
    });
  });

  describe("content by path id", () => {
    it("core/content/<id> answers as contentid?id=<id>, by GET and by POST with the override, on both prefixes", async () => {
      const token = await raw().token();
      const documented = await raw().read("/core/content/contentid?id=1002", token);
      const get = await raw().call("/core/content/1002", { token });
      const post = await raw().read("/core/content/1002", token);
      const api = await raw().read("/core/content/1002", token, { prefix: "/api" });
      expect(documented.status).toBe(200);
      for (const response of [get, post, api]) {
        expect(response.status).toBe(200);
        expect(response.body).toEqual(documented.body);
      }
      expect((await raw().call("/core/content/424242", { token })).status).toBe(404);
      expect((await raw().call("/core/content/abc", { token })).status).toBe(400);
    });

    it("core/content/referencefield/<id> answers as referencefield/referencefieldid?id=<id>", async () => {
      const token = await raw().token();
      const fieldId = id("fields", "risks/risk/controls");
      const documented = await raw().read(
        `/core/content/referencefield/referencefieldid?id=${fieldId}`,
        token,
      );
      const byPath = await raw().call(`/core/content/referencefield/${fieldId}`, { token });
      expect(documented.status).toBe(200);
      expect(documented.body.length).toBeGreaterThan(0);
      expect(byPath.status).toBe(200);
      expect(byPath.body).toEqual(documented.body);
      const named = id("fields", "risks/risk/name");
      expect((await raw().call(`/core/content/referencefield/${named}`, { token })).status).toBe(400);
    });
  });

  describe("groups", () => {
    it("group lists every group and group/<id> reads one, by GET and by POST with the override", async () => {
      const token = await raw().token();
      const all = await raw().call("/core/system/group", { token });
      expect(all.status).toBe(200);
      expect(requested(all).map((g: Json) => [g.Id, g.Name])).toEqual([
        [1, "Everyone"],
        [2, "Administrators"],
        [3, "Risk Owners"],
        [4, "Auditors"],
      ]);
      for (const group of requested(all)) {
        expect(Object.keys(group).sort()).toEqual([
          "Description",
          "DisplayName",
          "Guid",
          "Id",
          "Name",
          "UpdateInformation",
        ]);
        expect(group.Guid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      }
      const one = await raw().read("/core/system/group/3", token);
      expect(one.status).toBe(200);
      expect(one.body.RequestedObject).toEqual(requested(all)[2]);
      const filtered = await raw().read(
        `/core/system/group?$filter=${encodeURIComponent("Name eq 'auditors'")}`,
        token,
      );
      expect(requested(filtered).map((g: Json) => g.Id)).toEqual([4]);
    });

    it("an unknown group is 404 GroupNotFound; a bad id is 400", async () => {
      const token = await raw().token();
      const missing = await raw().read("/core/system/group/99", token);
      expect(missing.status).toBe(404);
      expect(missing.body.ValidationMessages[0].MessageKey).toBe("GroupNotFound");
      expect((await raw().read("/core/system/group/x", token)).status).toBe(400);
    });
  });

  describe("sub-form fields name their sub-form as RelatedSubformId", () => {
    it("every field read carries the key; a type 24 field holds the sub-form's id, which a sub-form save names", async () => {
      const token = await raw().token();
      const risks = id("modules", "risks");
      const fields = requested(await raw().read(`/core/system/fielddefinition/application/${risks}`, token));
      // Public clients index the key on every field of an application (`field['RelatedSubformId']`).
      for (const field of fields) expect(Object.keys(field)).toContain("RelatedSubformId");
      expect(fields.some((field: Json) => "SubformModuleId" in field)).toBe(false);
      const subformField = fields.find((field: Json) => field.Type === 24);
      expect(subformField.RelatedSubformId).toBe(id("modules", "comments"));
      expect(fields.filter((field: Json) => field.Type !== 24).map((f: Json) => f.RelatedSubformId)).toEqual(
        fields.filter((field: Json) => field.Type !== 24).map(() => null),
      );
      const single = await raw().read(`/core/system/fielddefinition/${subformField.Id}`, token);
      expect(single.body.RequestedObject.RelatedSubformId).toBe(id("modules", "comments"));

      // What the crashing client then does: find the sub-form's level and save a comment through the field.
      const [commentLevel] = requested(
        await raw().read(`/core/system/level/module/${subformField.RelatedSubformId}`, token),
      );
      const commentFields = requested(
        await raw().read(`/core/system/fielddefinition/level/${commentLevel.Id}`, token),
      );
      const text = commentFields.find((field: Json) => field.Type === 1);
      const saved = await raw().call("/core/content", {
        method: "POST",
        token,
        body: {
          LevelId: commentLevel.Id,
          FieldContents: { [text.Id]: { Type: 1, Value: "Through RelatedSubformId", FieldId: text.Id } },
          SubformFieldId: subformField.Id,
        },
      });
      expect(saved.status, saved.text).toBe(200);
    });
  });

  describe("cross-reference values are {ContentId, LevelId} objects", () => {
    const controlLevel = () => id("levels", "controls/control");
    const relatedControl = () => id("fields", "findings/finding/control");
    const finding = (value: unknown) => ({
      LevelId: id("levels", "findings/finding"),
      FieldContents: {
        [id("fields", "findings/finding/title")]: {
          Type: 1,
          Value: "Cross-referenced",
          FieldId: id("fields", "findings/finding/title"),
        },
        [relatedControl()]: { Type: 9, Value: value, FieldId: relatedControl() },
      },
    });

    it("a save takes the shape real instances read back, and every read answers it", async () => {
      const token = await raw().token();
      const saved = await raw().call("/core/content", {
        method: "POST",
        token,
        body: finding([{ ContentId: 1003, LevelId: controlLevel() }]),
      });
      expect(saved.status, saved.text).toBe(200);
      const recordId = saved.body.RequestedObject.Id;
      const expected = {
        Type: 9,
        Value: [{ ContentId: 1003, LevelId: controlLevel() }],
        FieldId: relatedControl(),
      };
      const read = await raw().read(`/core/content/contentid?id=${recordId}`, token);
      expect(read.body.RequestedObject.FieldContents[relatedControl()]).toEqual(expected);
      const fields = await raw().read("/core/content/fieldcontent", token, {
        body: { FieldIds: [relatedControl()], ContentIds: [recordId] },
      });
      expect(requested(fields)[0].FieldContents[relatedControl()]).toEqual(expected);
    });

    it("bare ids are still taken and answered as objects; a LevelId that is not the record's is a 400", async () => {
      const token = await raw().token();
      const saved = await raw().call("/core/content", { method: "POST", token, body: finding([1004]) });
      expect(saved.status, saved.text).toBe(200);
      const read = await raw().read(`/core/content/contentid?id=${saved.body.RequestedObject.Id}`, token);
      expect(read.body.RequestedObject.FieldContents[relatedControl()].Value).toEqual([
        { ContentId: 1004, LevelId: controlLevel() },
      ]);
      const wrong = await raw().call("/core/content", {
        method: "POST",
        token,
        body: finding([{ ContentId: 1004, LevelId: id("levels", "risks/risk") }]),
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.ValidationMessages[0]).toMatchObject({ MessageKey: "InvalidFieldValue" });
      expect(wrong.body.ValidationMessages[0].Description).toMatch(/content 1004 is in level \d+, not \d+/);
    });

    it("the seeded records and their history logs answer type 9 as objects too", async () => {
      const token = await raw().token();
      const risk = (await raw().read("/core/content/contentid?id=1002", token)).body.RequestedObject;
      const controls = risk.FieldContents[id("fields", "risks/risk/controls")];
      expect(controls.Type).toBe(9);
      expect(controls.Value.length).toBeGreaterThan(0);
      for (const item of controls.Value)
        expect(item).toEqual({ ContentId: expect.any(Number), LevelId: controlLevel() });
      const history = requested(await raw().read("/core/content/history/1002", token));
      const changes = history.flatMap((log: Json) => log.Entries.flatMap((e: Json) => e.Changes));
      const treated = changes.filter((c: Json) => c.FieldId === id("fields", "risks/risk/controls"));
      expect(treated.length).toBeGreaterThan(0);
      for (const change of treated) {
        for (const value of [change.OldValue, change.NewValue].filter((v) => v !== null)) {
          for (const item of value)
            expect(item).toEqual({ ContentId: expect.any(Number), LevelId: controlLevel() });
        }
      }
    });
  });

  describe("field content with an empty FieldIds", () => {
    it("answers every field of the records", async () => {
      const token = await raw().token();
      const everything = await raw().read("/core/content/fieldcontent", token, {
        body: { FieldIds: [], ContentIds: [1002, 1001] },
      });
      expect(everything.status, everything.text).toBe(200);
      const byId = async (contentId: number) =>
        (await raw().read(`/core/content/contentid?id=${contentId}`, token)).body.RequestedObject;
      const [risk, vendor] = requested(everything);
      expect(risk.FieldContents).toEqual((await byId(1002)).FieldContents);
      expect(vendor.FieldContents).toEqual((await byId(1001)).FieldContents);
      expect(Object.keys(risk.FieldContents).length).toBeGreaterThan(3);

      const filtered = await raw().read(
        `/core/content/fieldcontent?$filter=${encodeURIComponent("Risk_Score gt 14")}`,
        token,
        { body: { FieldIds: [], ContentIds: [1002, 1008] } },
      );
      expect(filtered.status, filtered.text).toBe(200);
      expect(requested(filtered).map((r: Json) => r.Id)).toEqual([1002]);
    });
  });

  describe("list reads honour OData options; other reads refuse them", () => {
    it("application?$filter=Name eq 'Risk Register' answers that application alone", async () => {
      const token = await raw().token();
      const all = requested(await raw().read("/core/system/application", token));
      expect(all.length).toBeGreaterThan(2);
      expect(all[0].Name).not.toBe("Risk Register");
      const filtered = await raw().read(
        `/core/system/application?$filter=${encodeURIComponent("Name eq 'Risk Register'")}`,
        token,
      );
      expect(filtered.status, filtered.text).toBe(200);
      expect(requested(filtered).map((a: Json) => [a.Id, a.Name])).toEqual([
        [id("modules", "risks"), "Risk Register"],
      ]);
    });

    /** Every read that answers a collection, with a field of its items to filter and sort by. */
    const lists = (): Array<[string, string]> => {
      const riskLevel = id("levels", "risks/risk");
      const rule = catalogue().eventRulesOf(riskLevel)[0]?.Id;
      return [
        ["/core/system/application", "Id"],
        ["/core/system/questionnaire", "Id"],
        ["/core/system/level", "Id"],
        [`/core/system/level/module/${id("modules", "policies")}`, "Id"],
        [`/core/system/level/referencefield/${id("fields", "findings/finding/related")}`, "Id"],
        [`/core/system/fielddefinition/level/${riskLevel}`, "Id"],
        [`/core/system/fielddefinition/application/${id("modules", "risks")}`, "Id"],
        [`/core/system/eventrule/level/${riskLevel}`, "Id"],
        [`/core/system/eventaction/eventrule/${rule}`, "Id"],
        [`/core/system/questionnairerule/level/${id("levels", "vendor-assessment/assessment")}`, "Id"],
        [`/core/system/valueslistvalue/flat/valueslist/${id("fields", "risks/risk/category")}`, "Id"],
        ["/core/system/securityparameter", "Id"],
        ["/core/system/user", "Id"],
        ["/core/system/user/group/1", "Id"],
        ["/core/system/group", "Id"],
        ["/core/system/usercontact", "UserId"],
        ["/core/system/usercontact/2", "Id"],
      ];
    };

    it("every list read answers $filter, $orderby, $top, $skip and $select over its items", async () => {
      const token = await raw().token();
      for (const [path, key] of lists()) {
        const read = async (query: string) => {
          const response = await raw().read(`${path}?${query}`, token);
          expect(response.status, `${path}?${query}: ${response.text}`).toBe(200);
          return requested(response);
        };
        const all = requested(await raw().read(path, token));
        expect(all.length, path).toBeGreaterThan(0);
        const last = all[all.length - 1];
        expect(await read(`$filter=${encodeURIComponent(`${key} eq ${last[key]}`)}`), path).toEqual([last]);
        expect(await read(`$filter=${encodeURIComponent(`${key} ne ${last[key]}`)}`), path).toEqual(
          all.slice(0, -1),
        );
        expect(await read(`$orderby=${encodeURIComponent(`${key} desc`)}`), path).toEqual(
          [...all].sort((a: Json, b: Json) => b[key] - a[key]),
        );
        expect(await read("$top=1"), path).toEqual([all[0]]);
        expect(await read("$skip=1"), path).toEqual(all.slice(1));
        expect(await read(`$select=${key}`), path).toEqual(all.map((item: Json) => ({ [key]: item[key] })));
        const unknown = await raw().read(`${path}?$filter=${encodeURIComponent("Bogus eq 1")}`, token);
        expect(unknown.status, path).toBe(400);
        expect(unknown.body.ValidationMessages[0].Description).toMatch(/^\$filter: unknown field 'Bogus'/);
      }
    });

    it("a read of one object, and a list the emulator cannot query, answer an option with 400 naming it", async () => {
      const token = await raw().token();
      const riskLevel = id("levels", "risks/risk");
      const rule = catalogue().eventRulesOf(riskLevel)[0]?.Id;
      const action = catalogue().eventActionsOf(rule as number)[0]?.Id;
      const questionnaireRule = catalogue().questionnaireRulesOf(
        id("levels", "vendor-assessment/assessment"),
      )[0]?.Id;
      const paths = [
        `/core/system/application/${id("modules", "risks")}`,
        `/core/system/questionnaire/${id("modules", "vendor-assessment")}`,
        `/core/system/level/${riskLevel}`,
        `/core/system/levellayout/level/${riskLevel}`,
        `/core/system/fielddefinition/${id("fields", "risks/risk/name")}`,
        `/core/system/eventrule/${rule}`,
        `/core/system/eventaction/${action}`,
        `/core/system/questionnairerule/${questionnaireRule}`,
        "/core/system/applicationinfo/version",
        "/core/system/user/2",
        "/core/system/group/1",
        "/core/system/securityparameter/1",
        "/core/system/WorkflowAction/1002",
        "/core/content/attachment/1",
        "/core/content/history/1002",
        "/core/package",
      ];
      for (const path of paths) {
        expect((await raw().read(path, token)).status, path).toBe(200);
        for (const option of ["$filter=Id eq 1", "$top=1", "$orderby=Id"]) {
          const response = await raw().read(`${path}?${option}`, token);
          expect(response.status, `${path}?${option}`).toBe(400);
          expect(response.body.IsSuccessful).toBe(false);
          expect(response.body.ValidationMessages[0]).toMatchObject({ MessageKey: "InvalidQuery" });
          expect(response.body.ValidationMessages[0].Description).toMatch(
            new RegExp(`^\\${option.split("=")[0]}: `),
          );
        }
      }
    });
  });

  describe("field definitions by application, and values lists", () => {
    it("fielddefinition/application/<id> lists every field of the application's levels", async () => {
      const token = await raw().token();
      const risks = id("modules", "risks");
      const response = await raw().read(`/core/system/fielddefinition/application/${risks}`, token);
      expect(response.status).toBe(200);
      const levels = catalogue()
        .levelsOf(risks)
        .map((l) => l.Id);
      const expected = levels.flatMap((l) =>
        catalogue()
          .fieldsOf(l)
          .map((f) => f.Id),
      );
      expect(requested(response).map((f: Json) => f.Id)).toEqual(expected);
      expect((await raw().read("/core/system/fielddefinition/application/999999", token)).status).toBe(404);
    });

    it("a values-list field names its list, whose values the flat read returns", async () => {
      const token = await raw().token();
      const categoryId = id("fields", "risks/risk/category");
      const category = (await raw().read(`/core/system/fielddefinition/${categoryId}`, token)).body
        .RequestedObject;
      expect(category.RelatedValuesListId).toEqual(expect.any(Number));
      const name = (
        await raw().read(`/core/system/fielddefinition/${id("fields", "risks/risk/name")}`, token)
      ).body.RequestedObject;
      expect(name.RelatedValuesListId).toBeNull();

      const values = await raw().read(
        `/core/system/valueslistvalue/flat/valueslist/${category.RelatedValuesListId}`,
        token,
      );
      expect(values.status).toBe(200);
      expect(requested(values)).toEqual(
        category.ValuesListValues.map((v: Json, i: number) => ({
          Id: v.Id,
          Guid: v.Guid,
          Name: v.Name,
          ValuesListId: category.RelatedValuesListId,
          SortOrder: i + 1,
          ParentId: null,
          IsActive: true,
          IsSelectable: true,
          Depth: 0,
        })),
      );
      const missing = await raw().read(`/core/system/valueslistvalue/flat/valueslist/${name.Id}`, token);
      expect(missing.status).toBe(404);
      expect(missing.body.ValidationMessages[0].MessageKey).toBe("ValuesListNotFound");
    });
  });
});

describe("SequentialId in state written before it existed", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });

  it("numbers the records in id order per application, and new records follow", async () => {
    const content = contentOf(emulator().store);
    delete content.sequences;
    for (const record of Object.values(content.records)) delete record.SequentialId;
    const token = await raw().token();
    const one = async (id: number) =>
      (await raw().read(`/core/content/contentid?id=${id}`, token)).body.RequestedObject.SequentialId;
    expect([await one(1002), await one(1008), await one(1011)]).toEqual([1, 2, 2]);
    const name = catalogueOf(emulator().store).byGuid("fields", demoGuid("risks/risk/name"))?.Id as number;
    const created = await raw().call("/core/content", {
      method: "POST",
      token,
      body: {
        LevelId: catalogueOf(emulator().store).byGuid("levels", demoGuid("risks/risk"))?.Id,
        FieldContents: { [name]: { Type: 1, Value: "After the upgrade", FieldId: name } },
      },
    });
    expect(await one(created.body.RequestedObject.Id)).toBe(3);
  });
});

describe("cross-reference values in state written when they were bare ids", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });

  it("are upgraded to {ContentId, LevelId} in records and history entries when the state is opened", async () => {
    const store = emulator().store;
    const catalogue = catalogueOf(store);
    const controls = catalogue.byGuid("fields", demoGuid("risks/risk/controls"))?.Id as number;
    const controlLevel = catalogue.byGuid("levels", demoGuid("controls/control"))?.Id as number;
    const content = contentOf(store);
    const asIds = (value: unknown) =>
      Array.isArray(value) ? value.map((item: { ContentId: number }) => item.ContentId) : value;
    for (const record of Object.values(content.records)) {
      const stored = record.FieldContents[String(controls)];
      if (stored) stored.Value = asIds(stored.Value);
      for (const change of Object.values(record.History).flatMap((entries) =>
        entries.flatMap((e) => e.Changes),
      )) {
        if (change.FieldId !== controls) continue;
        change.OldValue = asIds(change.OldValue);
        change.NewValue = asIds(change.NewValue);
      }
    }
    delete content.crossReferenceShape;
    expect(Array.isArray(content.records["1002"]?.FieldContents[String(controls)]?.Value)).toBe(true);

    const token = await raw().token();
    const risk = (await raw().read("/core/content/contentid?id=1002", token)).body.RequestedObject;
    const value = risk.FieldContents[String(controls)].Value;
    expect(value.length).toBeGreaterThan(0);
    for (const item of value) expect(item).toEqual({ ContentId: expect.any(Number), LevelId: controlLevel });
    const history = requested(await raw().read("/core/content/history/1002", token));
    const changed = history
      .flatMap((log: Json) => log.Entries.flatMap((e: Json) => e.Changes))
      .filter((c: Json) => c.FieldId === controls && c.NewValue !== null);
    expect(changed.length).toBeGreaterThan(0);
    for (const change of changed) {
      for (const item of change.NewValue)
        expect(item).toEqual({ ContentId: expect.any(Number), LevelId: controlLevel });
    }
  });
});

describe("the new reads on a release before 6.5", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev", release: "6.4.0" });

  it("answer under /api", async () => {
    const api = new Raw(raw().url, "/api");
    const token = await api.token();
    const name = catalogueOf(emulator().store).byGuid("fields", demoGuid("risks/risk/name"))?.Id;
    expect((await api.read("/core/system/group/1", token)).body.RequestedObject.Name).toBe("Everyone");
    expect((await api.call("/core/content/1002", { token })).body.RequestedObject.Id).toBe(1002);
    const fields = await api.call("/core/content/fieldcontent", {
      method: "POST",
      token,
      body: { FieldIds: [name], ContentIds: [1002] },
    });
    expect(requested(fields).map((r: Json) => r.Id)).toEqual([1002]);
  });
});
