import { describe, expect, it } from "vitest";
import type { PlatformClient } from "../../src/client/client.ts";
import { egp } from "../helpers/cli.ts";
import { RECORDS_ENV, thirdParties, useRecordsProd } from "../helpers/records-prod.ts";

/*
 * A record write the instance answers with 403, from the built CLI against demo-prod's Third
 * Parties (Acme Hosting, Tier 1): the record is read again by its key, and where it does not hold
 * the planned values the step fails with EGP_PLAN_STALE, writing nothing the plan did not show.
 */

const ENV = RECORDS_ENV;

const THIRD_PARTIES = thirdParties([
  "  - Vendor Name: Acme Hosting",
  "    Tier: Tier 2",
  "  - Vendor Name: Contoso Cloud",
  "    Tier: Tier 3",
]);

const startProd = useRecordsProd();

async function prod() {
  const { emulator, client, dir } = await startProd({ "manifests/third-parties.yaml": THIRD_PARTIES });
  return { emulator, client, dir };
}

const apply = (dir: string) => egp(["apply", "--env", "prod", "--yes", "--dir", dir], { env: ENV });

/** Third Parties' records by Vendor Name: their tiers, as the Content API reads them. */
async function tiers(client: PlatformClient): Promise<Record<string, unknown>> {
  const records = await client.contentApi.allRecords("Third_Party");
  return Object.fromEntries(records.map((record) => [String(record.Vendor_Name), record.Tier]));
}

describe("a record write answered with 403", () => {
  it("a create refused while no record has the key fails with EGP_PLAN_STALE and makes none", async () => {
    const { emulator, client, dir } = await prod();
    emulator.faults.script({ method: "POST", path: /\/core\/content$/i, action: { status: 403 } });
    const applied = await apply(dir);
    expect(applied.code).toBe(1);
    expect(applied.stdout + applied.stderr).toMatch(
      /EGP_PLAN_STALE.*the record "Contoso Cloud" of "Third Parties": the instance answered the create with 403 \(the record already exists\), and no record has its key now; the plan no longer matches the instance/,
    );
    expect(emulator.faults.stats.byKind["403"]).toBe(1);
    expect(await tiers(client)).toEqual({
      "Acme Hosting": ["Tier 2"],
      "Northwind Analytics": expect.anything(),
    });
  }, 120_000);

  it("an update refused while the record holds other values fails with EGP_PLAN_STALE naming the record and field", async () => {
    const { emulator, client, dir } = await prod();
    emulator.faults.script({ method: "PUT", path: /\/core\/content$/i, action: { status: 403 } });
    const applied = await apply(dir);
    expect(applied.code).toBe(1);
    expect(applied.stdout + applied.stderr).toMatch(
      /EGP_PLAN_STALE.*the record "Acme Hosting" of "Third Parties": the instance answered the update with 403 \(the record does not exist, or this account may not change it\), and the record with its key \(content id 1001\) holds other values of "Tier"/,
    );
    const now = await tiers(client);
    expect(now["Acme Hosting"]).toEqual(["Tier 1"]);
    expect(now["Contoso Cloud"]).toEqual(["Tier 3"]);
  }, 120_000);
});
