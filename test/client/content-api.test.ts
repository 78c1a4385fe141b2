import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { postInput } from "../../src/emulator/content/bodies.ts";
import { createRecord } from "../../src/emulator/content/write-record.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { type ContentApiEntity, InvalidArgumentError, NotFoundError } from "../../src/index.ts";
import { useClientEmulator } from "./helpers/client.ts";

/*
 * The typed Content API read (entity sets, one record, a filtered list) against demo-dev over HTTP,
 * with the session the client keeps for REST.
 */

describe("the Content API through the client", () => {
  const { client } = useClientEmulator({ seed: "demo-dev" });

  it("lists the entity sets, one per level alias", async () => {
    const sets = await client().contentApi.entitySets();
    expect(sets).toContainEqual({ name: "Risk", kind: "EntitySet", url: "Risk" });
    expect(sets.map((s) => s.name)).toContain("Third_Party");
  });

  it("reads one record and a filtered, selected page", async () => {
    const c = client();
    const risk: ContentApiEntity = await c.contentApi.record("Risk", 1002);
    expect(risk).toMatchObject({
      Risk_Id: 1002,
      Risk_Name: "Cloud provider outage",
      Category: ["Technology"],
    });
    const page = await c.contentApi.records("Risk", {
      filter: { field: "Category", op: "eq", value: "Compliance" },
      select: ["Risk_Id", "Risk_Name"],
      top: 10,
    });
    expect(page).toEqual([{ Risk_Id: 1008, Risk_Name: "Privileged access misuse" }]);
  });

  it("reads every record of a set, page by page", async () => {
    const all = await client().contentApi.allRecords("Risk", { select: ["Risk_Id"] });
    expect(all.map((r) => r.Risk_Id)).toEqual([1002, 1008]);
  });

  it("an unknown record or set is NotFoundError; a bad set name is refused before sending", async () => {
    const c = client();
    await expect(c.contentApi.record("Risk", 999999)).rejects.toThrow(NotFoundError);
    await expect(c.contentApi.records("No_Such_Level")).rejects.toThrow(NotFoundError);
    await expect(c.contentApi.records("Risk/../x")).rejects.toThrow(InvalidArgumentError);
  });
});

describe("the Content API over more than one page", () => {
  const { client, emulator } = useClientEmulator({ seed: "demo-dev" });

  it("allRecords reads past 1000 records", async () => {
    const store = emulator().store;
    const title = catalogueOf(store).byGuid("fields", demoGuid("policies/section/title"));
    if (!title) throw new Error("no section title field");
    // Made in-process: 1,001 POSTs would only slow the test down.
    for (let i = 0; i < 1001; i++) {
      const body = { LevelId: title.LevelId, FieldContents: { [title.Id]: { Type: 1, Value: `S${i}` } } };
      createRecord(store, 1, postInput(body));
    }
    const all = await client().contentApi.allRecords("Policy_Section", { select: "Policy_Section_Id" });
    expect(all).toHaveLength(1003);
    expect(new Set(all.map((r) => r.Policy_Section_Id)).size).toBe(1003);
  });
});

describe("the Content API on an instance without it", () => {
  const { client } = useClientEmulator({ seed: "demo-dev", integrations: false });

  it("is NotFoundError, and REST still answers", async () => {
    const c = client();
    await expect(c.contentApi.entitySets()).rejects.toThrow(NotFoundError);
    expect((await c.content.get(1002)).Id).toBe(1002);
  });
});
