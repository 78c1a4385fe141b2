import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, lines } from "../helpers/cli.ts";
import { RECORDS_ENV, thirdParties, useRecordsProd } from "../helpers/records-prod.ts";

/*
 * A saved plan of a Record document against demo-prod's Third Parties (Acme Hosting, content id
 * 1001; Northwind Analytics, which no entry names), applied from the built CLI after a direct
 * change: a field the plan does not manage, or a record no entry matches, leaves it fresh; a
 * managed field of a matched record, or a new record, stales it.
 */

const ENV = RECORDS_ENV;

// Contract End Date is managed for Contoso Cloud only: it is read for every record.
const THIRD_PARTIES = thirdParties([
  "  - Vendor Name: Acme Hosting",
  "    Tier: Tier 2",
  "  - Vendor Name: Contoso Cloud",
  "    Tier: Tier 3",
  "    Contract End Date: 2028-01-31",
]);

const startProd = useRecordsProd();

async function prod() {
  const { client, dir } = await startProd({ "manifests/third-parties.yaml": THIRD_PARTIES });
  const app = (await client.metadata.applications()).find((a) => a.Name === "Third Parties");
  const [level] = await client.metadata.levelsByModule(app?.Id ?? 0);
  const fields = await client.metadata.fieldDefinitions(level?.Id ?? 0);
  const field = (name: string) => fields.find((f) => f.Name === name);
  const tierId = (name: string) => field("Tier")?.ValuesListValues?.find((v) => v.Name === name)?.Id ?? 0;
  const contents = {
    tier: (name: string) => ({
      [String(field("Tier")?.Id)]: {
        Type: 4,
        Value: { ValuesListIds: [tierId(name)], OtherText: null },
        FieldId: field("Tier")?.Id ?? 0,
      },
    }),
    date: (value: string) => ({
      [String(field("Contract End Date")?.Id)]: {
        Type: 3,
        Value: value,
        FieldId: field("Contract End Date")?.Id ?? 0,
      },
    }),
    name: (value: string) => ({
      [String(field("Vendor Name")?.Id)]: { Type: 1, Value: value, FieldId: field("Vendor Name")?.Id ?? 0 },
    }),
  };
  const levelId = level?.Id ?? 0;
  type Contents = Record<string, { Type: number; Value: unknown; FieldId: number }>;
  const update = (id: number, fieldContents: Contents) =>
    client.content.update({ Content: { Id: id, LevelId: levelId, FieldContents: fieldContents } });
  const create = (fieldContents: Contents) =>
    client.content.create({ LevelId: levelId, FieldContents: fieldContents });
  const northwind = (await client.contentApi.allRecords("Third_Party")).find(
    (record) => record.Vendor_Name === "Northwind Analytics",
  );
  return { dir, client, contents, update, create, northwindId: Number(northwind?.Third_Party_Id) };
}

const savePlan = async (dir: string) => {
  const out = join(dir, "plan.json");
  const planned = await egp(["plan", "--env", "prod", "--dir", dir, "--out", out], { env: ENV });
  expect(planned.code).toBe(0);
  return out;
};

const applySaved = (dir: string, file: string) => egp(["apply", file, "--dir", dir], { env: ENV });

describe("a saved plan of records", () => {
  it("stays fresh after an edit to a field the plan does not manage, or to a record no entry matches", async () => {
    const { dir, client, contents, update, northwindId } = await prod();
    const file = await savePlan(dir);
    await update(1001, contents.date("2030-12-31"));
    await update(northwindId, contents.tier("Tier 3"));
    const applied = await applySaved(dir, file);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    const records = await client.contentApi.allRecords("Third_Party");
    const acme = records.find((record) => record.Vendor_Name === "Acme Hosting");
    expect(acme?.Tier).toEqual(["Tier 2"]);
    expect(String(acme?.Contract_End_Date)).toMatch(/^2030-12-31/);
    expect(records.map((record) => record.Vendor_Name)).toContain("Contoso Cloud");
  }, 120_000);

  it("is stale after an edit to a managed field of a matched record", async () => {
    const { dir, contents, update } = await prod();
    const file = await savePlan(dir);
    await update(1001, contents.tier("Tier 3"));
    const refused = await applySaved(dir, file);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_PLAN_STALE the saved plan \w+ is stale: the live records of prod changed since it was made/,
      ),
    ]);
  }, 120_000);

  it("is stale after a new record with a key an entry names", async () => {
    const { dir, contents, create } = await prod();
    const file = await savePlan(dir);
    await create({ ...contents.name("Contoso Cloud"), ...contents.tier("Tier 3") });
    const refused = await applySaved(dir, file);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_PLAN_STALE the saved plan \w+ is stale: the live records of prod changed since it was made/,
      ),
    ]);
  }, 120_000);
});
