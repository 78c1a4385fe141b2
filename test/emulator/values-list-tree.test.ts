import { describe, expect, it } from "vitest";
import { catalogueOf, type FieldRecord } from "../../src/emulator/catalogue/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { type Json, Raw, useEmulator } from "../helpers/raw.ts";

/*
 * Values lists as public clients read and write them on real instances: the hierarchical read
 * `valueslistvalue/valueslist/<id>` (`RequestedObject.Children[]` of `{Data, Children, Depth}`),
 * and a values-list field set by value name on record create.
 */

describe("values lists", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });
  const field = (path: string): FieldRecord => {
    const found = catalogueOf(emulator().store).byGuid("fields", demoGuid(path));
    if (!found) throw new Error(`no field ${path}`);
    return found;
  };

  describe("the hierarchical read", () => {
    it("answers RequestedObject.Children of {Data: {Id, Name, IsSelectable}, Children, Depth}", async () => {
      const token = await raw().token();
      const category = field("risks/risk/category");
      const tree = await raw().read(`/core/system/valueslistvalue/valueslist/${category.Id}`, token);
      expect(tree.status).toBe(200);
      expect(tree.body.IsSuccessful).toBe(true);
      const children = tree.body.RequestedObject.Children;
      expect(children.map((node: Json) => node.Data.Name)).toEqual([
        "Strategic",
        "Operational",
        "Financial",
        "Compliance",
        "Technology",
      ]);
      for (const node of children) {
        expect(node).toMatchObject({ Children: [], Depth: 0, Data: { IsSelectable: true, ParentId: null } });
      }
    });

    it("agrees with the flat read, value by value", async () => {
      const token = await raw().token();
      const impact = field("risks/risk/impact");
      const tree = await raw().call(`/core/system/valueslistvalue/valueslist/${impact.Id}`, { token });
      const flat = await raw().read(`/core/system/valueslistvalue/flat/valueslist/${impact.Id}`, token);
      expect(tree.status).toBe(200);
      const fromTree = tree.body.RequestedObject.Children.map((node: Json) => {
        const { IsSelectable: _selectable, ...data } = node.Data;
        return data;
      });
      // The flat read's flags are the node's own in the tree: `IsSelectable` on `Data`, `Depth` beside it.
      const flatData = flat.body.map((envelope: Json) => {
        const {
          IsActive: _active,
          IsSelectable: _selectable,
          Depth: _depth,
          ...data
        } = envelope.RequestedObject;
        return data;
      });
      expect(fromTree).toEqual(flatData);
    });

    it("404 for an id that names no list, 400 for a bad id or a query option", async () => {
      const token = await raw().token();
      const notList = await raw().read(
        `/core/system/valueslistvalue/valueslist/${field("risks/risk/name").Id}`,
        token,
      );
      expect(notList.status).toBe(404);
      expect(notList.body.ValidationMessages[0].MessageKey).toBe("ValuesListNotFound");
      const bad = await raw().read("/core/system/valueslistvalue/valueslist/abc", token);
      expect(bad.status).toBe(400);
      const option = await raw().read(
        `/core/system/valueslistvalue/valueslist/${field("risks/risk/impact").Id}?$top=1`,
        token,
      );
      expect(option.status).toBe(400);
      expect(option.body.ValidationMessages[0].MessageKey).toBe("InvalidQuery");
    });

    it("needs a session", async () => {
      const answer = await raw().call(
        `/core/system/valueslistvalue/valueslist/${field("risks/risk/impact").Id}`,
      );
      expect(answer.status).toBe(401);
    });
  });

  describe("set by value name on record create", () => {
    async function create(values: Record<number, unknown>): Promise<{ status: number; body: Json }> {
      const token = await raw().token();
      const name = field("risks/risk/name");
      const contents: Record<string, unknown> = {
        [name.Id]: { Type: 1, Value: "By name", FieldId: name.Id },
      };
      for (const [id, value] of Object.entries(values))
        contents[id] = { Type: 4, Value: value, FieldId: Number(id) };
      return raw().call("/core/content", {
        method: "POST",
        token,
        body: { Content: { LevelId: name.LevelId, FieldContents: contents } },
      });
    }

    async function readBack(contentId: number, fieldId: number): Promise<Json> {
      const token = await raw().token();
      const read = await raw().read(`/core/content/contentid?id=${contentId}`, token);
      return read.body.RequestedObject.FieldContents[fieldId]?.Value;
    }

    const idOf = (f: FieldRecord, name: string) => f.ValuesListValues.find((v) => v.Name === name)?.Id;

    it("takes names in ValuesListIds and stores the values' ids", async () => {
      const category = field("risks/risk/category");
      const created = await create({
        [category.Id]: { ValuesListIds: ["Compliance", "Technology"], OtherText: null },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(await readBack(created.body.RequestedObject.Id, category.Id)).toEqual({
        ValuesListIds: [idOf(category, "Compliance"), idOf(category, "Technology")],
        OtherText: null,
      });
    });

    it("takes a bare name or a list of names as the value, matching case and space as SQL Server does", async () => {
      const impact = field("risks/risk/impact");
      const likelihood = field("risks/risk/likelihood");
      const created = await create({ [impact.Id]: " major ", [likelihood.Id]: ["Rare"] });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = created.body.RequestedObject.Id;
      expect((await readBack(id, impact.Id)).ValuesListIds).toEqual([idOf(impact, "Major")]);
      expect((await readBack(id, likelihood.Id)).ValuesListIds).toEqual([idOf(likelihood, "Rare")]);
    });

    it("an unknown name is a 400 naming it, and nothing is created", async () => {
      const category = field("risks/risk/category");
      const created = await create({ [category.Id]: { ValuesListIds: ["Reputational"] } });
      expect(created.status).toBe(400);
      expect(created.body.ValidationMessages[0]).toMatchObject({ MessageKey: "InvalidFieldValue" });
      expect(created.body.ValidationMessages[0].Description).toMatch(/'Reputational' is not a value/);
    });
  });
});

describe("values lists on a release before 6.5", () => {
  const { emulator } = useEmulator({ seed: "demo-dev", release: "6.4.0" });

  it("answers the hierarchical read under /api", async () => {
    const api = new Raw(emulator().url, "/api");
    const token = await api.token();
    const impact = catalogueOf(emulator().store).byGuid("fields", demoGuid("risks/risk/impact"));
    const tree = await api.read(`/core/system/valueslistvalue/valueslist/${impact?.Id}`, token);
    expect(tree.status).toBe(200);
    expect(tree.body.RequestedObject.Children).toHaveLength(5);
  });
});
