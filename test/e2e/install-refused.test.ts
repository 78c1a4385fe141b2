// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { egp, exampleOnEmulators } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";

/*
 * A package install the target refuses fails `egp apply` with one clear line and exit 1: no hang,
 * no success, nothing installed. The plan refuses what it can see (a second application with an
 * existing name: test/e2e/package-checks.test.ts), so these use what it can't: a GUID of the
 * package that the target uses under another parent, or a clash made after the plan.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };
const startOne = emulatorsPerTest();

async function emulator(seed: string, installMs = 20): Promise<Emulator> {
  return startOne({ seed, jobs: { generateMs: 20, installMs } });
}

/** Someone moves a level with the GUID of dev's Finding level into Policies on prod. */
function findingLevelElsewhere(prod: Emulator): void {
  const catalogue = catalogueOf(prod.store);
  const policies = catalogue.byGuid("modules", demoGuid("policies"));
  if (!policies) throw new Error("demo-prod has no Policies");
  catalogue.put("levels", {
    Id: catalogue.nextId("levels"),
    Guid: demoGuid("findings/finding"),
    ModuleId: policies.Id,
    Name: "Finding",
    Description: null,
    Alias: "finding_by_hand",
    AllowFilter: true,
    ASOStatus: 1,
    IsDeleted: false,
    Translations: [],
    UpdateInformation: null,
  });
  prod.store.changed();
}

const REFUSED = /Level [0-9a-f-]+ belongs to another module on this instance/;

const exampleOn = (dev: Emulator, prod: Emulator) =>
  exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });

const applicationNames = (e: Emulator) =>
  catalogueOf(e.store)
    .all("modules")
    .map((m) => `${m.Name} ${m.Guid}`)
    .sort();

/** Someone makes a "Findings" application by hand on prod; the package brings dev's, another GUID. */
function findingsByHand(prod: Emulator): void {
  const catalogue = catalogueOf(prod.store);
  catalogue.put("modules", {
    Id: catalogue.nextId("modules"),
    Guid: "0d0d0d0d-1111-4222-8333-444444444444",
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
}

describe("egp apply: an install the target refuses", () => {
  it("a GUID the target uses under another parent fails the apply with the platform's message", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    findingLevelElsewhere(prod);
    const before = applicationNames(prod);

    const dir = await exampleOn(dev, prod);
    const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: ENV });
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    const output = applied.stdout + applied.stderr;
    expect(output).toMatch(
      /Package\/GRC Core#install: POST \/api\/core\/package\/install: HTTP 400 rejected: Level [0-9a-f-]+ belongs to another module/,
    );
    expect(output).not.toMatch(/\n\s+at .*\.(ts|js):\d+/);
    expect(output).not.toContain("Apply complete");
    // The step's line names the failure's code before its message.
    expect(applied.stdout).toMatch(
      /^Package\/GRC Core#install \(local-prod\): FAILED: EGP_VALIDATION POST \/api\/core\/package\/install: HTTP 400 rejected: Level /m,
    );
    expect(applicationNames(prod)).toEqual(before);

    // The refused install is marked so: the next apply does not wait for a job that never ran.
    const history = await egp(["history", "--env", "local-prod", "--dir", dir], { env: ENV });
    expect(history.stdout).toMatch(/, install asked \S+, refused or failed \S+;/);
    const again = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: ENV });
    expect(again.code).toBe(1);
    expect(again.stdout).not.toContain("was never seen done");
  });

  it("--json prints the failed step as an event with its code and a structured cause", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    findingLevelElsewhere(prod);
    const dir = await exampleOn(dev, prod);
    const applied = await egp(["--json", "apply", "--env", "local-prod", "--yes", "--dir", dir], {
      env: ENV,
    });
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    const events = applied.stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const failed = events.filter((event) => event.event === "failed");
    expect(failed).toEqual([
      expect.objectContaining({
        step: "Package/GRC Core#install",
        op: "package.install",
        environment: "local-prod",
        error: expect.objectContaining({
          code: "EGP_VALIDATION",
          kind: "Package",
          key: "GRC Core",
          op: "package.install",
          message: expect.stringMatching(REFUSED),
          cause: expect.objectContaining({
            code: "EGP_VALIDATION",
            name: "ValidationError",
            status: 400,
            method: "POST",
            path: "/api/core/package/install",
          }),
        }),
      }),
    ]);
  });

  it("an install job that fails (the conflict appeared after the call) fails the apply with its messages", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod", 1500)]);
    // The conflict is made while the job waits in the queue, after the call's dry run passed.
    let made = false;
    const watch = setInterval(() => {
      const queued = Object.values(packagesOf(prod.store).byId).some((p) => p.Installs.length > 0);
      if (queued && !made) {
        made = true;
        findingsByHand(prod);
      }
    }, 5);
    try {
      const dir = await exampleOn(dev, prod);
      const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: ENV });
      expect(made).toBe(true);
      expect(applied.code, applied.stdout + applied.stderr).toBe(1);
      expect(applied.stdout + applied.stderr).toMatch(
        /Package\/GRC Core#install: install of package \d+ failed: Two applications would be named "Findings"/,
      );
      expect(applied.stdout).toMatch(
        /#install \(local-prod\): FAILED: EGP_INSTALL_FAILED install of package \d+ failed/,
      );
      const findings = applicationNames(prod).filter((name) => name.startsWith("Findings "));
      expect(findings).toEqual(["Findings 0d0d0d0d-1111-4222-8333-444444444444"]);
    } finally {
      clearInterval(watch);
    }
  });
});
