import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { createVendor, thirdParties } from "../helpers/records-prod.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `egp plan` and `egp apply` of a Record document against demo-prod's Third Parties (Acme Hosting,
 * content id 1001, Tier 1), from the built CLI: the plan's lines, the refusals' one line and exit 1.
 */

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };

const THIRD_PARTIES = thirdParties([
  "  - Vendor Name: Acme Hosting",
  "    Tier: Tier 2",
  "  - Vendor Name: Contoso Cloud",
  "    Tier: Tier 3",
  "    Contract End Date: 2028-01-31",
]);

const started: Emulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

async function prodWith(options: { integrations?: boolean } = {}) {
  const prod = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD, ...options });
  started.push(prod);
  const dir = await testdir({
    "environments/prod.yaml": environmentFile(prod.url),
    "manifests/third-parties.yaml": THIRD_PARTIES,
  });
  return { prod, dir };
}

const plan = (dir: string) => egp(["plan", "--env", "prod", "--dir", dir], { env: ENV });

describe("egp plan of Record documents", () => {
  it("shows one update and one create by name, applies them, and then plans no changes", async () => {
    const { dir } = await prodWith();
    const planned = await plan(dir);
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain(
      '~ Record Third Parties "Acme Hosting"\n      ~ Tier: "Tier 1" -> "Tier 2"',
    );
    expect(planned.stdout).toContain('+ Record Third Parties "Contoso Cloud"');
    expect(planned.stdout).toContain("Plan: 1 to add, 1 to change, 0 to destroy");

    const applied = await egp(["apply", "--env", "prod", "--yes", "--dir", dir], { env: ENV });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    const again = await plan(dir);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("No changes.");
  });

  it("exits 1 with EGP_RECORD_KEY_AMBIGUOUS naming both records when a second one has the key", async () => {
    const { prod, dir } = await prodWith();
    const client = createClient({
      url: prod.url,
      instance: "Default",
      username: "sysadmin",
      password: PASSWORD,
    });
    try {
      const second = await createVendor(client, "Acme Hosting");
      const refused = await plan(dir);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe("");
      expect(lines(refused.stderr)).toEqual([
        `egp: EGP_RECORD_KEY_AMBIGUOUS manifests/third-parties.yaml:5:18 records[0].records[0]["Vendor Name"]: the key "Acme Hosting" matches 2 records (content ids 1001, ${second}) on prod; which one is meant can't be told`,
      ]);
    } finally {
      await client.close();
    }
  });

  it("exits 1 with EGP_RECORD_READ_UNAVAILABLE where the instance serves no Content API", async () => {
    const { dir } = await prodWith({ integrations: false });
    const refused = await plan(dir);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_RECORD_READ_UNAVAILABLE manifests\/third-parties\.yaml:2:\d+: the records of "Third Parties" on prod can't be read: the Content API answered 404; they are not taken as none$/,
      ),
    ]);
  });
});
