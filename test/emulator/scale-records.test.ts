import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { parseSeed } from "../../src/emulator/seeds/index.ts";

/* `scale:records=N`: an application of N keyed records, read back through the Content API in pages. */

const PASSWORD = "Password1!";
const started: Emulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

describe("the scale seed's records option", () => {
  it("parses records=N beside the other options", () => {
    expect(parseSeed("scale:users=2,records=1500")).toEqual({
      kind: "scale",
      users: 2,
      apps: 0,
      parameters: 0,
      records: 1500,
    });
  });

  it("serves N records with a key, a values list and two text fields", async () => {
    const emulator = await startEmulator({ port: 0, seed: "scale:records=1201", adminPassword: PASSWORD });
    started.push(emulator);
    const client = createClient({
      url: emulator.url,
      instance: "Default",
      username: "sysadmin",
      password: PASSWORD,
    });
    try {
      const app = (await client.metadata.applications()).find((a) => a.Name === "Scale Records");
      const [level] = await client.metadata.levelsByModule(app?.Id ?? 0);
      const fields = await client.metadata.fieldDefinitions(level?.Id ?? 0);
      expect(fields.map((f) => [f.Name, f.Type])).toEqual([
        ["Record Key", 1],
        ["Category", 4],
        ["Title", 1],
        ["Notes", 1],
      ]);
      const records = await client.contentApi.allRecords(level?.Alias ?? "", {
        select: ["Record_Key", "Category"],
      });
      expect(records).toHaveLength(1201);
      expect(new Set(records.map((r) => r.Record_Key)).size).toBe(1201);
      expect(records[0]).toMatchObject({ Record_Key: "REC-000001", Category: ["Software"] });
      expect(records[1200]).toMatchObject({ Record_Key: "REC-001201", Category: ["Software"] });
    } finally {
      await client.close();
    }
  });
});
