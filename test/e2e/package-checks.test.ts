// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { aliasOf } from "../../src/emulator/catalogue/build.ts";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { createClient } from "../../src/index.ts";
import { readPlanFile } from "../../src/plan/index.ts";
import { generatedPackage, optionsFor } from "../client/helpers/client.ts";
import { egp, environmentFile, lines, QUICK } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A package's dependencies, its clashes with the target and the order between packages, checked
 * by `plan` before any write (DESIGN §3), against emulators over HTTP: what the plan refuses, a
 * direct install refuses too; what it accepts installs and verifies.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };
const startOne = emulatorsPerTest();
const emulator = (seed: string) => startOne({ seed, jobs: { generateMs: 20, installMs: 20 } });

const FINDINGS_ONLY = ["kind: Package", "name: Findings only", "objects:", "  - application: Findings", ""];

async function repo(dev: Emulator, prod: Emulator, manifest: readonly string[]): Promise<string> {
  return testdir({
    "environments/local-dev.yaml": environmentFile(dev.url, QUICK),
    "environments/local-prod.yaml": environmentFile(prod.url, ["packagesFrom: local-dev", ...QUICK]),
    "manifests/packages.yaml": manifest.join("\n"),
  });
}

const run = (dir: string, ...args: string[]) => egp([...args, "--dir", dir], { env: ENV });

/** 1-based line and column of `needle` in the manifest. */
function position(manifest: readonly string[], needle: string): string {
  const index = manifest.findIndex((line) => line.includes(needle));
  return `${index + 1}:${(manifest[index] ?? "").indexOf(needle) + 1}`;
}

const moduleNames = (e: Emulator) =>
  catalogueOf(e.store)
    .all("modules")
    .map((m) => `${m.Type} ${m.Name} ${m.Guid}`)
    .sort();

/** Installs a package of dev's objects on prod through the interface, as egp's apply would. */
async function installDirectly(dev: Emulator, prod: Emulator, guids: readonly string[]): Promise<void> {
  const source = createClient(optionsFor(dev.url));
  const target = createClient(optionsFor(prod.url));
  try {
    const id = await generatedPackage(source, {
      Description: "",
      PreparedBy: "test",
      PackageObjects: guids.map((Guid) => ({ Guid, Type: "Application" })),
    });
    const file = join(await testdir({}), "package.zip");
    await source.packages.download(id, file);
    const uploaded = await target.packages.upload(file);
    await target.packages.install({ PackageId: uploaded, InactivateUnusedFields: false, InstallOptions: [] });
  } finally {
    await Promise.all([source.close(), target.close()]);
  }
}

describe("dependencies", () => {
  it("a package of Findings alone, into an empty instance: plan, drift and apply exit 1 before any write, naming what is missing", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("empty")]);
    const dir = await repo(dev, prod, FINDINGS_ONLY);
    const before = moduleNames(prod);

    const plan = await run(dir, "plan", "--env", "local-prod");
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    const problems = lines(plan.stderr);
    const at = `egp: EGP_PLAN_INVALID manifests/packages.yaml:${position(FINDINGS_ONLY, "Findings only")}:`;
    expect(problems).toEqual([
      `${at} package "Findings only": application "Controls" is needed by Findings (field "Related Control", cross-reference; field "Related Items", related records), and is neither in the package nor on local-prod; add it to objects, set includeDependencies: true, or install it first`,
      `${at} package "Findings only": application "Risk Register" is needed by Findings (field "Related Items", related records), and is neither in the package nor on local-prod; add it to objects, set includeDependencies: true, or install it first`,
      `${at} package "Findings only": sub-form "Comments" is needed by Findings (field "Comments", sub-form), and is neither in the package nor on local-prod; add it to objects, set includeDependencies: true, or install it first`,
    ]);
    expect(plan.stderr).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);

    const drift = await run(dir, "drift", "--env", "local-prod");
    expect(drift.code).toBe(1);
    expect(lines(drift.stderr)).toEqual(problems);
    const apply = await run(dir, "apply", "--env", "local-prod", "--yes");
    expect(apply.code).toBe(1);
    expect(lines(apply.stderr)).toEqual(problems);
    expect(Object.keys(packagesOf(dev.store).byId)).toEqual([]);
    expect(moduleNames(prod)).toEqual(before);

    // The platform refuses the same install, by GUID.
    await expect(installDirectly(dev, prod, [demoGuid("findings")])).rejects.toThrow(
      /Field "Related Control" of Findings references level [0-9a-f-]+, which is neither in the package nor on this instance/,
    );
  });

  it("includeDependencies: true adds what is missing, transitively, says why, and the promotion converges and verifies", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("empty")]);
    const manifest = [...FINDINGS_ONLY.slice(0, -1), "includeDependencies: true", ""];
    const dir = await repo(dev, prod, manifest);

    const plan = await run(dir, "plan", "--env", "local-prod");
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(
      /\n {6}~ Application Controls: "\(absent\)" -> "1 level, 10 fields, [^"]+" \(added as a dependency of Findings \(field Related Control\)\)\n/,
    );
    expect(plan.stdout).toMatch(
      /~ Application Risk Register: .* \(added as a dependency of Findings \(field Related Items\)\)/,
    );
    expect(plan.stdout).toMatch(
      /~ SubForm Comments: .* \(added as a dependency of Findings \(field Comments\)\)/,
    );
    expect(plan.stdout).toMatch(
      /~ Application Policies: .* \(added as a dependency of Controls \(field Policies\)\)/,
    );
    expect(plan.stdout).toMatch(/~ Application Findings: "\(absent\)" -> "[^"]+"\n/);

    const json = readPlanFile((await run(dir, "plan", "--env", "local-prod", "--format", "json")).stdout);
    const fields = json.changes[0]?.fields ?? [];
    expect(fields.map((f) => [f.field, f.dependencyOf?.object ?? null])).toEqual(
      expect.arrayContaining([
        ["Application Findings", null],
        ["Application Controls", "Findings"],
        ["Application Policies", "Controls"],
      ]),
    );
    const install = json.steps.find((s) => s.op === "package.install");
    expect(
      ((install?.input ?? { objects: [] }) as { objects: { name: string }[] }).objects
        .map((o) => o.name)
        .sort(),
    ).toEqual(["Comments", "Controls", "Findings", "Policies", "Risk Register"]);
    const markdown = await run(dir, "plan", "--env", "local-prod", "--format", "markdown");
    expect(markdown.stdout).toContain("(added as a dependency of Findings (field Related Control))");

    const apply = await run(dir, "apply", "--env", "local-prod", "--yes");
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/Package\/Findings only#verify \(local-prod\): done/);
    const again = await run(dir, "plan", "--env", "local-prod", "--detailed-exitcode");
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain("No changes.");
  }, 90_000);
});

describe("conflicts", () => {
  it("an application on the target with the package's name and another GUID is refused by plan, and by the platform", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const catalogue = catalogueOf(prod.store);
    const byHand = "0d0d0d0d-1111-4222-8333-444444444444";
    catalogue.put("modules", {
      Id: catalogue.nextId("modules"),
      Guid: byHand,
      Alias: "findings_by_hand",
      Name: "Findings",
      Description: null,
      Type: "Application",
      KeepLicensed: false,
      IsDeprecated: false,
      TargetFieldId: null,
      Translations: [],
      UpdateInformation: null,
    });
    prod.store.changed();
    const dir = await repo(dev, prod, FINDINGS_ONLY);

    const plan = await run(dir, "plan", "--env", "local-prod");
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    expect(lines(plan.stderr)).toEqual([
      `egp: EGP_PLAN_INVALID manifests/packages.yaml:${position(FINDINGS_ONLY, "application: Findings")}: package "Findings only": two applications would be named "Findings": "Findings" (${demoGuid("findings")}, in the package) and "Findings" (${byHand}, on local-prod); an install refuses this (or makes a duplicate such as "Findings (1)"): rename one of them on its instance, map them (give the source's object the target's GUID by promoting the target's first), or exclude the object from the package`,
    ]);
    await expect(installDirectly(dev, prod, [demoGuid("findings")])).rejects.toThrow(
      /Two applications would be named "Findings"/,
    );
  });

  it("a field on the target with the alias of a packaged field and another GUID is refused by plan, and by the platform", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const catalogue = catalogueOf(prod.store);
    const level = catalogue.byGuid("levels", demoGuid("controls/control"));
    if (!level) throw new Error("demo-prod has no Control level");
    const byHand = "0e0e0e0e-1111-4222-8333-444444444444";
    catalogue.put("fields", {
      Id: catalogue.nextId("fields"),
      Guid: byHand,
      Alias: aliasOf("Last Tested"),
      Name: "Tested On",
      LevelId: level.Id,
      Type: 3,
      IsActive: true,
      IsRequired: false,
      Description: null,
      ValuesListValues: [],
      ReferencedLevelIds: [],
      SubformModuleId: null,
      Translations: [],
      UpdateInformation: null,
    });
    prod.store.changed();
    const manifest = ["kind: Package", "name: Controls", "objects:", "  - application: Controls", ""];
    const dir = await repo(dev, prod, manifest);

    const plan = await run(dir, "plan", "--env", "local-prod");
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    expect(lines(plan.stderr)).toEqual([
      `egp: EGP_PLAN_INVALID manifests/packages.yaml:${position(manifest, "application: Controls")}: package "Controls": level "Control" of application "Controls" would have two fields with the alias "Last_Tested": "Last Tested" (${demoGuid("controls/control/last-tested")}, in the package) and "Tested On" (${byHand}, on local-prod); an install refuses this: rename one of them on its instance, map them (give the source's object the target's GUID by promoting the target's first), or exclude the object from the package`,
    ]);
    await expect(installDirectly(dev, prod, [demoGuid("controls")])).rejects.toThrow(
      /two fields with the alias "Last_Tested"/,
    );
  });
});

describe("order between packages", () => {
  const CATALOG = [
    "kind: Package",
    "name: Catalog",
    "objects:",
    "  - application: Controls",
    "  - application: Risk Register",
    "  - application: Policies",
    "  - guid: f6ad3b50-dc4f-53ce-9630-6ae114cf566f",
    "    type: SubForm",
  ];

  it("dependsOn: the use case is installed after the catalog, in one plan, and needs no includeDependencies", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("empty")]);
    const manifest = [...CATALOG, "---", ...FINDINGS_ONLY.slice(0, -1), "dependsOn: [Catalog]", ""];
    const dir = await repo(dev, prod, manifest);

    const json = await run(dir, "plan", "--env", "local-prod", "--format", "json");
    expect(json.code, json.stderr).toBe(0);
    const steps = readPlanFile(json.stdout).steps;
    const install = steps.find((s) => s.id === "Package/Findings only#install");
    expect(install?.dependsOn).toContain("Package/Catalog#verify");
    const order = steps.map((s) => s.id);
    expect(order.indexOf("Package/Catalog#verify")).toBeLessThan(
      order.indexOf("Package/Findings only#install"),
    );

    // Targeted at the use case, the plan keeps the catalog it depends on, as Terraform does.
    const targeted = await run(
      dir,
      "plan",
      "--env",
      "local-prod",
      "--format",
      "json",
      "--target",
      "Package/Findings only",
    );
    expect(targeted.code, targeted.stderr).toBe(0);
    const changes = readPlanFile(targeted.stdout).changes;
    expect(
      changes.map((c) => [c.key, c.notes.includes("not targeted: a targeted change depends on it")]),
    ).toEqual([
      ["Catalog", true],
      ["Findings only", false],
    ]);

    const apply = await run(dir, "apply", "--env", "local-prod", "--yes");
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const again = await run(dir, "plan", "--env", "local-prod", "--detailed-exitcode");
    expect(again.code, again.stdout + again.stderr).toBe(0);
  }, 90_000);

  it("without dependsOn, the objects another package of the plan brings are named with the fix", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("empty")]);
    const dir = await repo(dev, prod, [...CATALOG, "---", ...FINDINGS_ONLY]);
    const plan = await run(dir, "plan", "--env", "local-prod");
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'package "Findings only": application "Controls" is needed by Findings (field "Related Control", cross-reference; field "Related Items", related records), and is neither in the package nor on local-prod; package "Catalog" of this plan has it: add dependsOn: ["Catalog"]',
    );
  });

  it("a loop of dependsOn is refused at each document's dependsOn", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("empty")]);
    const manifest = [
      ...CATALOG,
      "dependsOn: [Findings only]",
      "---",
      ...FINDINGS_ONLY.slice(0, -1),
      "dependsOn: [Catalog]",
      "",
    ];
    const dir = await repo(dev, prod, manifest);
    const plan = await run(dir, "plan", "--env", "local-prod");
    expect(plan.code).toBe(1);
    const first = manifest.indexOf("dependsOn: [Findings only]") + 1;
    const second = manifest.indexOf("dependsOn: [Catalog]") + 1;
    expect(lines(plan.stderr)).toEqual([
      `egp: EGP_PLAN_INVALID manifests/packages.yaml:${first}:13 packages[0].dependsOn[0]: makes a loop: "Catalog" → "Findings only" → "Catalog"; a package can only be installed after the packages it depends on`,
      `egp: EGP_PLAN_INVALID manifests/packages.yaml:${second}:13 packages[1].dependsOn[0]: makes a loop: "Catalog" → "Findings only" → "Catalog"; a package can only be installed after the packages it depends on`,
    ]);
  });
});
