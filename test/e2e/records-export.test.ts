import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { createClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { createVendor } from "../helpers/records-prod.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `egp export --kind Record` against demo-prod over HTTP, from the built CLI: the document it writes
 * (values by name, the forms docs/records.md fixes), the fields it leaves out, its refusals, and a
 * plan of what it wrote.
 */

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };

const started: Emulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

async function prod(options: { integrations?: boolean } = {}) {
  const emulator = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD, ...options });
  started.push(emulator);
  return testdir({ "environments/prod.yaml": environmentFile(emulator.url) });
}

const run = (dir: string, args: readonly string[]) =>
  egp(
    ["export", "--env", "prod", "--dir", dir, "--out", join(dir, "manifests"), "--kind", "Record", ...args],
    {
      env: ENV,
      cwd: dir,
    },
  );

async function written(dir: string, file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(dir, "manifests", file), "utf8");
  return parseAllDocuments(text).map((doc) => doc.toJS());
}

describe("egp export --kind Record", () => {
  it("writes Third Parties by key, values by name, and names the fields it leaves out", async () => {
    const dir = await prod();
    const exported = await run(dir, ["--application", "Third Parties", "--key", "Vendor Name"]);
    expect(exported.stderr).toBe("");
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(
      "wrote manifests/records-third-parties.yaml: 2 records of Third Parties\n" +
        "  left out Logo (image): no Record document can express its type\n",
    );
    expect(await written(dir, "records-third-parties.yaml")).toEqual([
      {
        kind: "Record",
        application: "Third Parties",
        environments: ["prod"],
        key: ["Vendor Name"],
        records: [
          {
            "Vendor Name": "Acme Hosting",
            Tier: "Tier 1",
            Website: [{ name: "Acme Hosting", url: "https://acme-hosting.example.com" }],
            "Egress IP Address": "203.0.113.10",
            "Relationship Owner": { users: ["anguyen"] },
            "Contract End Date": "2027-06-30",
          },
          { "Vendor Name": "Northwind Analytics", Tier: "Tier 2", "Egress IP Address": "2001:db8::42" },
        ],
      },
    ]);
  });

  it("writes a level other than the first, and a plan of it shows no changes", async () => {
    const dir = await prod();
    const exported = await run(dir, [
      "--application",
      "Policies",
      "--level",
      "Policy Section",
      "--key",
      "Section Title",
    ]);
    expect(exported.stderr).toBe("");
    expect(exported.stdout).toBe(
      "wrote manifests/records-policies-policy-section.yaml: 2 records of Policies\n",
    );
    expect(await written(dir, "records-policies-policy-section.yaml")).toEqual([
      {
        kind: "Record",
        application: "Policies",
        level: "Policy Section",
        environments: ["prod"],
        key: ["Section Title"],
        records: [
          {
            "Section Title": "Acceptable Use",
            "Section Number": 2,
            "Section Text": "Acceptable Use requirements.",
          },
          {
            "Section Title": "Access Control",
            "Section Number": 1,
            "Section Text": "Access Control requirements.",
          },
        ],
      },
    ]);
    // A second export into the same folder finds its own document there and writes the same file.
    const file = await readFile(join(dir, "manifests", "records-policies-policy-section.yaml"), "utf8");
    const again = await run(dir, [
      "--application",
      "Policies",
      "--level",
      "Policy Section",
      "--key",
      "Section Title",
    ]);
    expect(again).toEqual({ ...exported, stderr: "" });
    expect(await readFile(join(dir, "manifests", "records-policies-policy-section.yaml"), "utf8")).toBe(file);
    const planned = await egp(["plan", "--env", "prod", "--dir", dir, "--detailed-exitcode"], { env: ENV });
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);
    expect(lines(planned.stdout)[0]).toBe("No changes. prod matches the manifests.");
  });

  it("says in one line that a key must be given where the instance does not flag one", async () => {
    const dir = await prod();
    const refused = await run(dir, ["--application", "Third Parties"]);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      'egp: EGP_USAGE --key: the instance does not say which field of "Third Parties" is its key; name it with --key FIELD',
    ]);
  });

  it("refuses a key two records share, naming both, and writes nothing", async () => {
    const emulator = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
    started.push(emulator);
    const dir = await testdir({ "environments/prod.yaml": environmentFile(emulator.url) });
    const client = createClient({
      url: emulator.url,
      instance: "Default",
      username: "sysadmin",
      password: PASSWORD,
    });
    try {
      const second = await createVendor(client, "Acme Hosting");
      const refused = await run(dir, ["--application", "Third Parties", "--key", "Vendor Name"]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe("");
      expect(lines(refused.stderr)).toEqual([
        `egp: EGP_RECORD_KEY_AMBIGUOUS export: two records have the key "Acme Hosting" in "Third Parties" on prod (content ids 1001, ${second}); a Record document can't tell them apart by [Vendor Name]: give --key fields that do`,
      ]);
      await expect(readFile(join(dir, "manifests", "records-third-parties.yaml"), "utf8")).rejects.toThrow(
        "ENOENT",
      );
    } finally {
      await client.close();
    }
  });

  it("says in one line which referenced application's key to name", async () => {
    const dir = await prod();
    const refused = await run(dir, ["--application", "Controls", "--key", "Control Name"]);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_USAGE --ref-key: "(Mitigated Risks|Policies)" references "(Risk Register|Policies)", whose key field the instance does not say and no Record document gives; name it with --ref-key "(Risk Register|Policies)=FIELD"$/,
      ),
    ]);
  });
  it("refuses an unknown application with the closest name", async () => {
    const dir = await prod();
    const refused = await run(dir, ["--application", "Third Partys", "--key", "Vendor Name"]);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      'egp: EGP_USAGE --application: no application "Third Partys" on prod; did you mean "Third Parties"?',
    ]);
  });

  it("refuses with EGP_RECORD_READ_UNAVAILABLE where the instance serves no Content API", async () => {
    const dir = await prod({ integrations: false });
    const refused = await run(dir, ["--application", "Third Parties", "--key", "Vendor Name"]);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      'egp: EGP_RECORD_READ_UNAVAILABLE export: the records of "Third Parties" on prod can\'t be read: the Content API answered 404',
    ]);
  });
});
