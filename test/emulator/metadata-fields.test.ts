import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.ts";
import { Application, Questionnaire } from "../../src/wire/index.ts";
import { type Json, Raw, useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The metadata fields real instances answer and public clients filter on (docs/emulator.md,
 * "Metadata fields clients filter on"): an MCP server for the platform keeps only applications
 * whose `Status` is 1, and XSOAR's connector builds each application as
 * `{Id, Type, Name, LanguageId, Status, Guid}`.
 */

const requested = (response: { body: Json }) => response.body.map((e: Json) => e.RequestedObject);

/** What the MCP server does with the application list: the active ones, by name. */
function activeApplication(apps: Json[], name: string): Json {
  const found = apps.filter((app) => app.Status === 1).find((app) => app.Name === name);
  if (!found) throw new Error(`Application "${name}" not found`);
  return found;
}

describe("metadata fields clients read", () => {
  const { raw } = useEmulator({ seed: "demo-dev" });

  it("applications carry Status 1 and LanguageId beside Id, Type, Name and Guid", async () => {
    const token = await raw().token();
    const apps = requested(await raw().read("/core/system/application", token));
    expect(apps.length).toBeGreaterThan(0);
    for (const app of apps) {
      expect(Application.strict().safeParse(app).success).toBe(true);
      const { Id, Type, Name, LanguageId, Status, Guid } = app;
      expect({ Type, LanguageId, Status }).toEqual({ Type: expect.any(String), LanguageId: 1, Status: 1 });
      expect([typeof Id, typeof Name, typeof Guid]).toEqual(["number", "string", "string"]);
    }
    const policies = activeApplication(apps, "Policies");
    const one = await raw().read(`/core/system/application/${policies.Id}`, token);
    expect(one.body.RequestedObject).toMatchObject({ Name: "Policies", Status: 1, LanguageId: 1 });
  });

  it("a list filters on them", async () => {
    const token = await raw().token();
    const all = requested(await raw().read("/core/system/application", token));
    const active = await raw().read(
      `/core/system/application?$filter=${encodeURIComponent("Status eq 1")}`,
      token,
    );
    expect(active.status).toBe(200);
    expect(requested(active).map((a: Json) => a.Name)).toEqual(all.map((a: Json) => a.Name));
    const none = await raw().read(
      `/core/system/application?$filter=${encodeURIComponent("Status ne 1")}`,
      token,
    );
    expect(requested(none)).toEqual([]);
  });

  it("questionnaires carry them too", async () => {
    const token = await raw().token();
    const questionnaires = requested(await raw().read("/core/system/questionnaire", token));
    expect(questionnaires.length).toBeGreaterThan(0);
    for (const q of questionnaires) {
      expect(Questionnaire.strict().safeParse(q).success).toBe(true);
      expect(q).toMatchObject({ Type: "Questionnaire", Status: 1, LanguageId: 1 });
    }
  });

  it("the XML form holds them", async () => {
    const token = await raw().token();
    const xml = await raw().read("/core/system/application", token, {
      headers: { accept: "application/xml" },
    });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain("<Status>1</Status>");
    expect(xml.text).toContain("<LanguageId>1</LanguageId>");
  });
});

/** Every stored module (the objects that hold `KeepLicensed`) in a row. */
function modulesIn(value: Json): Json[] {
  if (Array.isArray(value)) return value.flatMap(modulesIn);
  if (value === null || typeof value !== "object") return [];
  const inner = Object.values(value).flatMap(modulesIn);
  return "KeepLicensed" in value ? [value, ...inner] : inner;
}

describe("a data file written without the fields", () => {
  it("opens unchanged and reads every module as active in the default language", async () => {
    const dir = await testdir({});
    const dataFile = join(dir, "state.db");
    const first = await startEmulator({ port: 0, seed: "demo-dev", dataFile });
    await first.close();
    // Strip the two keys from every stored module, as a file written before they existed holds them.
    const db = new DatabaseSync(dataFile);
    const rows = db
      .prepare("SELECT key, json FROM rows WHERE json LIKE '%\"KeepLicensed\"%'")
      .all() as Array<{
      key: string;
      json: string;
    }>;
    expect(rows.length).toBeGreaterThan(0);
    const strip = (value: Json): Json => {
      if (Array.isArray(value)) return value.map(strip);
      if (value === null || typeof value !== "object") return value;
      const out: Json = {};
      for (const [key, inner] of Object.entries(value)) {
        if ("KeepLicensed" in value && (key === "Status" || key === "LanguageId")) continue;
        out[key] = strip(inner);
      }
      return out;
    };
    const update = db.prepare("UPDATE rows SET json = ? WHERE key = ?");
    for (const row of rows) update.run(JSON.stringify(strip(JSON.parse(row.json))), row.key);
    db.close();

    const second = await startEmulator({ port: 0, seed: "demo-dev", dataFile });
    try {
      const raw = new Raw(second.url);
      const token = await raw.token();
      const apps = requested(await raw.read("/core/system/application", token));
      expect(apps.map((a: Json) => [a.Status, a.LanguageId])).toEqual(apps.map(() => [1, 1]));
      const reread = new DatabaseSync(dataFile, { readOnly: true });
      const stored = reread
        .prepare("SELECT json FROM rows WHERE json LIKE '%\"KeepLicensed\"%'")
        .all() as Array<{
        json: string;
      }>;
      reread.close();
      const modules = stored.flatMap((row) => modulesIn(JSON.parse(row.json)));
      expect(modules.length).toBeGreaterThan(0);
      expect(modules.filter((m) => "Status" in m || "LanguageId" in m)).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
