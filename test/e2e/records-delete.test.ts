import { readFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { thirdParties } from "../helpers/records-prod.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Record deletes from the built CLI against demo-prod's Third Parties (Acme Hosting, content id
 * 1001, and Northwind Analytics): `ensure: absent`, `prune: delete`, the --allow-delete limit, and a delete
 * whose record is already gone. The PrunePolicy excludes every user and parameter, so that
 * --allow-delete lifts the records' limit and prunes nothing else.
 */

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };

const KEEP_THE_REST = [
  "kind: PrunePolicy",
  "exclude:",
  '  users: ["*"]',
  '  securityParameters: ["*"]',
  "",
].join("\n");

const document = (entries: readonly string[], prune = false) =>
  thirdParties(entries, prune ? ["prune: delete"] : []);

const vendors = (count: number) =>
  Array.from({ length: count }, (_, at) => `  - Vendor Name: Vendor ${String(at + 1).padStart(2, "0")}`);

const started: Emulator[] = [];
const clients: PlatformClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

async function prodWith(manifest: string) {
  const prod = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  started.push(prod);
  const client = createClient({
    url: prod.url,
    instance: "Default",
    username: "sysadmin",
    password: PASSWORD,
  });
  clients.push(client);
  const files = {
    "environments/prod.yaml": environmentFile(prod.url),
    "manifests/prune-policy.yaml": KEEP_THE_REST,
    "manifests/third-parties.yaml": manifest,
  };
  return { prod, client, dir: await testdir(files) };
}

const run = (dir: string, ...args: string[]) => egp([...args, "--env", "prod", "--dir", dir], { env: ENV });

/** The Vendor Names of Third Parties' records, as the Content API reads them. */
async function vendorNames(client: PlatformClient): Promise<string[]> {
  const records = await client.contentApi.allRecords("Third_Party");
  return records.map((record) => String(record.Vendor_Name)).sort();
}

describe("Record deletes", () => {
  it("validate: an absent entry gives its key fields alone, and ensure is present or absent", async () => {
    const dir = await testdir({
      "environments/prod.yaml": environmentFile("http://127.0.0.1:9"),
      "manifests/third-parties.yaml": document([
        "  - Vendor Name: Acme Hosting",
        "    ensure: absent",
        "    Tier: Tier 2",
        "  - Vendor Name: Contoso Cloud",
        "    ensure: gone",
      ]),
    });
    const checked = await egp(["validate", "--dir", dir], { env: ENV });
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(
      /third-parties\.yaml:7:11 records\[0\]\.records\[0\]\.Tier: not allowed with ensure: absent, which names the record by its key fields alone/,
    );
    expect(checked.stderr).toMatch(
      /third-parties\.yaml:9:13 records\[0\]\.records\[1\]\.ensure: is "present" or "absent", not "gone"/,
    );
  }, 120_000);

  it("ensure: absent deletes the record its key names; past 5% of the application only with --allow-delete", async () => {
    const { client, dir } = await prodWith(
      document([
        "  - Vendor Name: Acme Hosting",
        "    ensure: absent",
        "  - Vendor Name: Nobody Trading",
        "    ensure: absent",
      ]),
    );
    const refused = await run(dir, "plan");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_RECORD_DELETE_LIMIT manifests\/third-parties\.yaml:2:\d+ application: the plan deletes 1 of the 2 records of "Third Parties" on prod; .*only with --allow-delete/,
      ),
    ]);

    const planned = await run(dir, "plan", "--allow-delete");
    expect(planned.stderr).toBe("");
    expect(planned.stdout).toContain('- Record Third Parties "Acme Hosting"');
    expect(planned.stdout).toContain("# ensure: absent in the manifests");
    expect(planned.stdout).toContain(
      "# a deleted record can't come back: a new one gets a new id, and its history, workflow and attachments are gone",
    );
    expect(planned.stdout).not.toContain("Nobody Trading");
    expect(planned.stdout).toContain("Plan: 0 to add, 0 to change, 1 to destroy");

    const applied = await run(dir, "apply", "--yes", "--allow-delete");
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(await vendorNames(client)).not.toContain("Acme Hosting");
    const again = await run(dir, "plan", "--allow-delete");
    expect(again.stdout).toContain("No changes.");
  }, 120_000);

  it("a plan saved with --allow-delete records it: its file applies the deletes past the limit with no flag", async () => {
    const { client, dir } = await prodWith(document(["  - Vendor Name: Acme Hosting", "    ensure: absent"]));
    const file = `${dir}/plan.json`;
    const saved = await run(dir, "plan", "--allow-delete", "--out", file);
    expect(saved.code).toBe(0);
    expect(JSON.parse(await readFile(file, "utf8")).options.allowDelete).toBe(true);
    const applied = await egp(["apply", file, "--dir", dir], { env: ENV });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(await vendorNames(client)).not.toContain("Acme Hosting");
  }, 120_000);

  it("prune: delete deletes the records no entry names; within the limit it needs no flag", async () => {
    const { client, dir } = await prodWith(
      document(["  - Vendor Name: Acme Hosting", "  - Vendor Name: Northwind Analytics", ...vendors(24)]),
    );
    expect((await run(dir, "apply", "--yes")).code).toBe(0);
    await writeFile(
      `${dir}/manifests/third-parties.yaml`,
      document(
        ["  - Vendor Name: Acme Hosting", "  - Vendor Name: Northwind Analytics", ...vendors(23)],
        true,
      ),
    );
    const planned = await run(dir, "plan");
    expect(planned.stderr).toBe("");
    expect(planned.stdout).toContain('- Record Third Parties "Vendor 24"');
    expect(planned.stdout).toContain("# no entry names it, and the document says prune: delete");
    expect(planned.stdout).toContain("Plan: 0 to add, 0 to change, 1 to destroy");

    expect((await run(dir, "apply", "--yes")).code).toBe(0);
    const names = await vendorNames(client);
    expect(names).toHaveLength(25);
    expect(names).not.toContain("Vendor 24");
    expect((await run(dir, "plan")).stdout).toContain("No changes.");
  }, 120_000);

  it("a delete whose answer is lost finds the record gone (404) on its next try, and is done", async () => {
    const { prod, client, dir } = await prodWith(
      document(["  - Vendor Name: Acme Hosting", "    ensure: absent"]),
    );
    prod.faults.script({
      method: "DELETE",
      path: /\/core\/content\/1001/i,
      action: { reset: true, after: true },
    });
    const applied = await run(dir, "apply", "--yes", "--allow-delete");
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(prod.faults.stats.byKind["reset-after"]).toBe(1);
    expect(await vendorNames(client)).not.toContain("Acme Hosting");
  }, 120_000);
});
