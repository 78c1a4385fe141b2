import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { egp, environmentFile, QUICK } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { egpYamlFor, SIGNING_ENV } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A release of a package naming a questionnaire: built on dev, it records the questionnaire's
 * rules as parts; prod, whose questionnaire is as dev's, has nothing to plan; a rule edited on prod
 * is a change the release's plan names, and a drift finding that the plan fixes.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!", ...SIGNING_ENV };
const NAME = "2026-12-q1";
const startOne = emulatorsPerTest();
const temp: string[] = [];
afterAll(() => Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true }))));

const PACKAGE = [
  "kind: Package",
  "name: Assessments",
  "objects:",
  "  - application: Vendor Risk Assessment",
  "",
].join("\n");

async function emulator(seed: string): Promise<Emulator> {
  return startOne({ seed, jobs: { generateMs: 20, installMs: 20 } });
}

const run = (dir: string, args: string[]) => egp([...args, "--dir", dir], { env: ENV });

describe("a release of a questionnaire", { timeout: 120_000 }, () => {
  it("records its rules, plans nothing where the target is alike, and names a rule edited there", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const storeDir = await mkdtemp(join(tmpdir(), "egp-release-questionnaire-"));
    temp.push(storeDir);
    const dir = await testdir({
      "egp.yaml": egpYamlFor(join(storeDir, "store")),
      "manifests/assessments.yaml": PACKAGE,
      "environments/dev.yaml": environmentFile(dev.url, QUICK),
      "environments/prod.yaml": environmentFile(prod.url, [`release: ${NAME}`, ...QUICK]),
    });
    const created = await run(dir, ["release", "create", "--from", "dev", "--name", NAME]);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    const file = await readFile(join(dir, `releases/${NAME}.yaml`), "utf8");
    const rule = demoGuid("vendor-assessment/assessment?high");
    expect(file).toContain(`questionnaireRule:${rule}`);
    expect(file).toContain("High inherent risk");

    const alike = await run(dir, ["plan", "--env", "prod"]);
    expect(alike.code, alike.stdout + alike.stderr).toBe(0);
    expect(alike.stdout).toContain("No changes");

    const catalogue = catalogueOf(prod.store);
    const live = catalogue.byGuid("questionnaireRules", rule);
    if (!live) throw new Error("demo-prod has no high inherent risk rule");
    catalogue.put("questionnaireRules", { ...live, Outcome: "Ignore" });
    prod.store.changed();

    const changed = await run(dir, ["plan", "--env", "prod"]);
    expect(changed.stdout).toContain('~ questionnaire rule "High inherent risk": changed');
    const drift = await run(dir, ["drift", "--env", "prod", "--format", "json"]);
    expect(drift.code).toBe(2);
    expect(JSON.parse(drift.stdout).findings).toEqual([
      expect.objectContaining({
        part: `questionnaireRule:${rule}`,
        partLabel: 'questionnaire rule "High inherent risk" of "Vendor Risk Assessment"',
        remedy: "plan fixes it",
        differsFrom: `release ${NAME}`,
      }),
    ]);
  });
});
