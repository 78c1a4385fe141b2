import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { readPackageObjects, readPackageParts } from "../../src/state/package-objects.ts";

/*
 * Questionnaires in the package part model, over HTTP: the platform lists them apart from
 * applications, and their levels' questionnaire rules are parts of their trees. An application's
 * read asks for no questionnaire rules.
 */

const PASSWORD = "Quest#Test2026";
const ASSESSMENT = demoGuid("vendor-assessment");
const RISKS = demoGuid("risks");
const RULES_ROUTE = "POST /core/system/questionnairerule/level/{}";

let dev: Emulator;

function client(url: string): PlatformClient {
  const limits = { concurrency: 4, requestsPerSecond: 0 };
  return createClient({ url, instance: "Default", username: "sysadmin", password: PASSWORD, limits });
}

async function withClient<T>(body: (c: PlatformClient) => Promise<T>): Promise<T> {
  const c = client(dev.url);
  try {
    return await body(c);
  } finally {
    await c.close();
  }
}

beforeAll(async () => {
  dev = await startEmulator({ port: 0, seed: "demo-dev", adminPassword: PASSWORD });
});

afterAll(async () => {
  await dev?.close();
});

describe("questionnaires as package objects", () => {
  it("resolves a questionnaire by name, as an application, and reads its questionnaire rules as parts", async () => {
    const read = await withClient((c) =>
      readPackageObjects(
        c,
        (names) => [{ guid: names["vendor risk assessment"] ?? "", type: "Application" }],
        {
          keepDetails: () => true,
        },
      ),
    );
    expect(read.applicationsByName["vendor risk assessment"]).toBe(ASSESSMENT);
    const object = read.objects[ASSESSMENT];
    expect(object).toMatchObject({ type: "Application", name: "Vendor Risk Assessment" });
    const rules = Object.keys(object?.partFingerprints ?? {}).filter((k) =>
      k.startsWith("questionnaireRule:"),
    );
    expect(rules).toHaveLength(2);
    expect(object?.parts["questionnaire rules"]).toBe(2);
    const names = rules.map((k) => object?.details?.[k]);
    expect(names).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: "High inherent risk",
          parent: "Vendor Risk Assessment",
          properties: expect.objectContaining({
            condition: "Data_Access = Restricted AND Has_SOC_2_Report = No",
            "condition fields": ["Data Access", "Has SOC 2 Report"],
            outcome: "Flag as high risk",
          }),
        }),
      ]),
    );
  });

  it("names a questionnaire rule for people in the parts a snapshot records", async () => {
    const parts = await withClient((c) => readPackageParts(c, [{ guid: ASSESSMENT, type: "Application" }]));
    const labels = Object.entries(parts[ASSESSMENT]?.parts ?? {})
      .filter(([key]) => key.startsWith("questionnaireRule:"))
      .map(([, part]) => part.label)
      .sort();
    expect(labels).toEqual([
      'questionnaire rule "High inherent risk"',
      'questionnaire rule "Missing security contact"',
    ]);
  });

  it("reads no questionnaire rules for an application", async () => {
    const stats = await withClient(async (c) => {
      await readPackageObjects(c, [{ guid: RISKS, type: "Application" }]);
      return c.stats();
    });
    expect(stats.byRoute["POST /core/system/questionnaire"]).toBe(1);
    expect(stats.byRoute[RULES_ROUTE]).toBeUndefined();
    const questionnaire = await withClient(async (c) => {
      await readPackageObjects(c, [{ guid: ASSESSMENT, type: "Application" }]);
      return c.stats();
    });
    expect(questionnaire.byRoute[RULES_ROUTE]).toBe(1);
  });
});
