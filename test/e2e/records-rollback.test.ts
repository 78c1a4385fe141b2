import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PlatformClient } from "../../src/client/client.ts";
import { egp } from "../helpers/cli.ts";
import { RECORDS_ENV, thirdParties, useRecordsProd } from "../helpers/records-prod.ts";

/*
 * `egp rollback` of the records an apply changed, from the built CLI against demo-prod (Acme
 * Hosting, content id 1001: Tier 1, contract end 2027-06-30; Controls 1003 a control): updated
 * fields go back where they still hold what the apply wrote, created records go unless another
 * record references them now.
 */

const ENV = RECORDS_ENV;

const THIRD_PARTIES = thirdParties([
  "  - Vendor Name: Acme Hosting",
  "    Tier: Tier 2",
  "    Contract End Date: 2029-12-31",
  "  - Vendor Name: Contoso Cloud",
  "    Tier: Tier 3",
]);

const POLICIES = [
  "kind: Record",
  "application: Policies",
  "key: [Policy Name]",
  "records:",
  "  - Policy Name: Vendor Management Policy",
  "    Status: Draft",
  "",
].join("\n");

const startProd = useRecordsProd();

async function prodWith(manifests: Record<string, string>) {
  const { dir, client } = await startProd(manifests);
  return { dir, client };
}

/** The application's first level, its fields by name, and its records by the named text field. */
async function level(client: PlatformClient, application: string) {
  const app = (await client.metadata.applications()).find((a) => a.Name === application);
  const [first] = await client.metadata.levelsByModule(app?.Id ?? 0);
  if (!first) throw new Error(`no level of ${application}`);
  const fields = new Map((await client.metadata.fieldDefinitions(first.Id)).map((f) => [f.Name, f]));
  const field = (name: string) => {
    const found = fields.get(name);
    if (!found) throw new Error(`no field ${name}`);
    return found;
  };
  const records = async (keyField: string) => {
    const all = await client.contentApi.allRecords(first.Alias);
    return new Map(all.map((entity) => [String(entity[field(keyField).Alias]), entity]));
  };
  return { id: first.Id, alias: first.Alias, field, records };
}

const run = (dir: string, ...args: string[]) => egp([...args, "--env", "prod", "--dir", dir], { env: ENV });

describe("egp rollback of records", () => {
  it("restores the updated record's values and deletes the created, unreferenced record", async () => {
    const { dir, client } = await prodWith({ "manifests/third-parties.yaml": THIRD_PARTIES });
    const vendors = await level(client, "Third Parties");
    const applied = await run(dir, "apply", "--yes");
    expect(applied.code).toBe(0);
    const after = await vendors.records("Vendor Name");
    expect(after.get("Acme Hosting")?.[vendors.field("Tier").Alias]).toEqual(["Tier 2"]);
    const contoso = after.get("Contoso Cloud")?.[`${vendors.alias}_Id`];
    expect(contoso).toEqual(expect.any(Number));

    const planned = await run(dir, "rollback", "--plan-only");
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain("Planned only: nothing was changed.");
    expect((await vendors.records("Vendor Name")).has("Contoso Cloud")).toBe(true);

    const rolled = await run(dir, "rollback", "--yes");
    expect(rolled.stderr).toBe("");
    expect(rolled.code).toBe(0);
    expect(rolled.stdout).toContain('restore Record Third Parties "Acme Hosting": "Tier" back to ["Tier 1"]');
    expect(rolled.stdout).toContain(
      `delete Record Third Parties "Contoso Cloud" (content id ${contoso}): created by the apply, referenced by no other record`,
    );
    expect(rolled.stdout).toContain("Rollback complete: 2 field(s) restored, 1 record(s) deleted");

    const back = await vendors.records("Vendor Name");
    expect(back.get("Acme Hosting")?.[vendors.field("Tier").Alias]).toEqual(["Tier 1"]);
    expect(String(back.get("Acme Hosting")?.[vendors.field("Contract End Date").Alias])).toMatch(
      /^2027-06-30/,
    );
    expect(back.has("Contoso Cloud")).toBe(false);

    const again = await run(dir, "rollback", "--yes");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("Nothing to roll back: the records plan");
  }, 60_000);

  it("leaves a field changed since as a named conflict, and keeps a created record that a control references", async () => {
    const { dir, client } = await prodWith({
      "manifests/third-parties.yaml": THIRD_PARTIES,
      "manifests/policies.yaml": POLICIES,
    });
    const applied = await run(dir, "apply", "--yes");
    expect(applied.code).toBe(0);
    const vendors = await level(client, "Third Parties");
    const policies = await level(client, "Policies");
    const controls = await level(client, "Controls");
    const policy = (await policies.records("Policy Name")).get("Vendor Management Policy")?.[
      `${policies.alias}_Id`
    ] as number;
    // By hand, after the apply: Acme's tier, and a control that now cites the new policy.
    const tier = vendors.field("Tier");
    const tier3 = tier.ValuesListValues.find((v) => v.Name === "Tier 3")?.Id ?? 0;
    await client.content.update({
      Content: {
        Id: 1001,
        LevelId: vendors.id,
        FieldContents: {
          [tier.Id]: {
            Type: tier.Type,
            FieldId: tier.Id,
            Value: { ValuesListIds: [tier3], OtherText: null },
          },
        },
      },
    });
    const cites = controls.field("Policies");
    await client.content.update({
      Content: {
        Id: 1003,
        LevelId: controls.id,
        FieldContents: {
          [cites.Id]: {
            Type: cites.Type,
            FieldId: cites.Id,
            Value: [{ ContentId: policy, LevelId: policies.id }],
          },
        },
      },
    });

    const rolled = await run(dir, "rollback", "--yes");
    expect(rolled.stderr).toBe("");
    expect(rolled.code).toBe(0);
    expect(rolled.stdout).toContain(
      'conflict Record Third Parties "Acme Hosting": "Tier" holds ["Tier 3"] now, not ["Tier 2"] as the apply wrote; left as it is',
    );
    expect(rolled.stdout).toContain(
      `keep Record Policies "Vendor Management Policy" (content id ${policy}): referenced by Controls record 1003 ("Policies"), left as it is`,
    );
    expect(rolled.stdout).toContain(
      "1 field(s) restored, 1 record(s) deleted; 1 conflict(s) and 1 kept record(s)",
    );

    const acme = (await vendors.records("Vendor Name")).get("Acme Hosting");
    expect(acme?.[tier.Alias]).toEqual(["Tier 3"]);
    expect(String(acme?.[vendors.field("Contract End Date").Alias])).toMatch(/^2027-06-30/);
    expect((await vendors.records("Vendor Name")).has("Contoso Cloud")).toBe(false);
    expect((await policies.records("Policy Name")).has("Vendor Management Policy")).toBe(true);

    // The record snapshot in the store says what this rollback did.
    const kept = join(dir, ".egp/store/records/record-snapshots/prod");
    const [file] = readdirSync(kept);
    const snapshot = JSON.parse(readFileSync(join(kept, file ?? ""), "utf8"));
    expect(snapshot.rollbacks).toEqual([
      expect.objectContaining({
        restored: ['Record Third Parties "Acme Hosting": "Contract End Date" back to "2027-06-30"'],
        conflicts: [expect.stringContaining('"Tier" holds ["Tier 3"] now')],
        deleted: [expect.stringContaining('Record Third Parties "Contoso Cloud"')],
        kept: [expect.stringContaining('referenced by Controls record 1003 ("Policies")')],
        failed: [],
      }),
    ]);

    const audit = await egp(["audit", "--dir", dir], { env: ENV });
    expect(audit.stdout).toMatch(
      /rollback prod: recorded\n[^#]*keep Record Policies "Vendor Management Policy"/,
    );
  }, 60_000);
});
