import { describe, expect, it } from "vitest";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { NotFoundError, type ValuesListNode, type ValuesListTree } from "../../src/index.ts";
import { useClientEmulator } from "./helpers/client.ts";

/* The typed read of a values list as a tree, against demo-dev over HTTP. */

describe("values lists: the tree read", () => {
  const { client } = useClientEmulator({ seed: "demo-dev" });

  it("reads a field's list as a tree whose values agree with the flat read", async () => {
    const c = client();
    const risks = (await c.metadata.applications()).find((a) => a.Guid === demoGuid("risks"));
    const fields = await c.metadata.fieldDefinitionsByApplication(risks?.Id as number);
    const listId = fields.find((f) => f.Guid === demoGuid("risks/risk/likelihood"))?.RelatedValuesListId;
    const tree: ValuesListTree = await c.valuesLists.tree(listId as number);
    const top: ValuesListNode[] = tree.Children;
    expect(top.map((node) => [node.Data.Name, node.Data.IsSelectable, node.Depth, node.Children])).toEqual([
      ["Rare", true, 0, []],
      ["Unlikely", true, 0, []],
      ["Possible", true, 0, []],
      ["Likely", true, 0, []],
      ["Almost Certain", true, 0, []],
    ]);
    const flat = await c.valuesLists.values(listId as number);
    expect(top.map((node) => node.Data.Id)).toEqual(flat.map((value) => value.Id));
  });

  it("an id that names no list is NotFoundError", async () => {
    await expect(client().valuesLists.tree(999999)).rejects.toThrow(NotFoundError);
  });
});
