import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Export, then plan: "No changes", for demo-prod's applications whose records hold users and
 * groups, external links, IP addresses and references (Controls' cross-reference to Policies and
 * related records of the Risk Register, Policies' related Sections). The plan reads every one of
 * those forms back, so these runs cover the plan side of each field type too.
 */

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };

const started: Emulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

async function prod() {
  const emulator = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  started.push(emulator);
  return testdir({ "environments/prod.yaml": environmentFile(emulator.url) });
}

const exportOf = (dir: string, args: readonly string[]) =>
  egp(
    ["export", "--env", "prod", "--dir", dir, "--out", join(dir, "manifests"), "--kind", "Record", ...args],
    {
      env: ENV,
      cwd: dir,
    },
  );

async function documentIn(dir: string, file: string): Promise<Record<string, unknown>> {
  const [doc] = parseAllDocuments(await readFile(join(dir, "manifests", file), "utf8")).map((d) => d.toJS());
  return doc;
}

async function expectNoChanges(dir: string) {
  const planned = await egp(["plan", "--env", "prod", "--dir", dir, "--detailed-exitcode"], { env: ENV });
  expect(planned.stderr).toBe("");
  expect(planned.code).toBe(0);
  expect(lines(planned.stdout)[0]).toBe("No changes. prod matches the manifests.");
}

describe("egp export --kind Record, then egp plan", () => {
  it("Third Parties (users, links, IP addresses): no changes", async () => {
    const dir = await prod();
    const exported = await exportOf(dir, ["--application", "Third Parties", "--key", "Vendor Name"]);
    expect(exported.code).toBe(0);
    await expectNoChanges(dir);
  });

  it("Controls (a cross-reference to Policies, related Risk Register records), by the targets' keys: no changes", async () => {
    const dir = await prod();
    const exported = await exportOf(dir, [
      "--application",
      "Controls",
      "--key",
      "Control Name",
      "--ref-key",
      "Risk Register=Risk Name",
      "--ref-key",
      "Policies=Policy Name",
    ]);
    expect(exported.stderr).toBe("");
    expect(exported.stdout).toBe(
      "wrote manifests/records-controls.yaml: 2 records of Controls\n" +
        "  left out Comments (sub-form): no Record document can express its type\n",
    );
    expect(await documentIn(dir, "records-controls.yaml")).toMatchObject({
      key: ["Control Name"],
      keys: { Policies: ["Policy Name"], "Risk Register": ["Risk Name"] },
      records: [
        { "Control Name": "AC-2 Account management", Policies: ["Information Security Policy"] },
        { "Control Name": "Quarterly user access review", "Mitigated Risks": ["Cloud provider outage"] },
      ],
    });
    await expectNoChanges(dir);
  });

  it("Policies (related Sections), the sections' key taken from their own Record document: no changes", async () => {
    const dir = await prod();
    const sections = await exportOf(dir, [
      "--application",
      "Policies",
      "--level",
      "Policy Section",
      "--key",
      "Section Title",
    ]);
    expect(sections.code).toBe(0);
    const exported = await exportOf(dir, ["--application", "Policies", "--key", "Policy Name"]);
    expect(exported.stderr).toBe("");
    expect(exported.code).toBe(0);
    const document = await documentIn(dir, "records-policies.yaml");
    expect(document).not.toHaveProperty("keys");
    expect(document).toMatchObject({
      records: [
        {
          "Policy Name": "Information Security Policy",
          Status: "Approved",
          "Policy Owner": { users: ["ejohansson"] },
          "Reference URL": [{ name: "Intranet copy", url: "https://intranet.example.com/policies/infosec" }],
          Sections: ["Access Control", "Acceptable Use"],
        },
      ],
    });
    await expectNoChanges(dir);
  });

  it("Policies with --ref-key for the sections' level writes it in the keys: map: no changes", async () => {
    const dir = await prod();
    const exported = await exportOf(dir, [
      "--application",
      "Policies",
      "--key",
      "Policy Name",
      "--ref-key",
      "Policies/Policy Section=Section Title",
    ]);
    expect(exported.code).toBe(0);
    expect(await documentIn(dir, "records-policies.yaml")).toMatchObject({
      keys: { "Policies/Policy Section": ["Section Title"] },
    });
    await expectNoChanges(dir);
  });
});
