import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { egp, environmentFile, exampleOnEmulators, lines, QUICK, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { egpYamlFor, SIGNING_ENV } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Every kind of change the planner makes, planned and saved (`--out`), then applied from the saved
 * file by the built CLI against emulators over HTTP, as a CI pipeline applies an approved plan:
 * creates, updates and deletes of users and security parameters, a promotion from a source
 * environment (packagesFrom), a promotion of a release, and a rollback.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!", ...SIGNING_ENV };
const startOne = emulatorsPerTest();
const emulator = (seed: string) => startOne({ seed, jobs: { generateMs: 20, installMs: 20 } });

/** `egp plan --out FILE` for `env`, then `egp apply FILE`; returns the saved plan's changes. */
async function planSaveApply(dir: string, env: string, file: string): Promise<string[]> {
  const planned = await egp(["plan", "--env", env, "--out", file, "--dir", dir], { env: ENV });
  expect(planned.code, planned.stdout + planned.stderr).toBe(0);
  const saved = JSON.parse(await readFile(file, "utf8")) as { changes: { id: string; action: string }[] };
  const applied = await egp(["apply", file, "--dir", dir], { env: ENV });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  expect(applied.stdout).toContain("Apply complete");
  const after = await egp(["plan", "--env", env, "--detailed-exitcode", "--dir", dir], { env: ENV });
  expect(after.code, after.stdout).toBe(0);
  return saved.changes.map((change) => `${change.action} ${change.id}`);
}

const ruleOf = (e: Emulator) =>
  catalogueOf(e.store)
    .all("eventRules")
    .find((rule) => rule.Name === "Escalate critical risks")?.Condition;

describe("a saved plan of every kind of change applies from its file", () => {
  it("creates, updates and a promotion from a source environment, then deletes of a user and a parameter", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });

    const first = await planSaveApply(dir, "local-prod", join(dir, "first.json"));
    expect(first).toEqual(
      expect.arrayContaining([
        "promote Package/GRC Core",
        "create SecurityParameter/Contractor Parameter",
        "update SecurityParameter/General User Parameter",
        "create User/kmurphy",
        "update User/anguyen",
      ]),
    );

    // kmurphy moves to the everyday parameter, and dpatel is deleted.
    const users = join(dir, "manifests/users.yaml");
    const usersText = await readFile(users, "utf8");
    await writeFile(
      users,
      `${usersText.replace("securityParameter: Contractor Parameter", "securityParameter: General User Parameter")}---\nkind: User\nuserName: dpatel\nensure: absent\n`,
    );
    const second = await planSaveApply(dir, "local-prod", join(dir, "second.json"));
    expect(second.sort()).toEqual(["delete User/dpatel", "update User/kmurphy"]);

    // The contractors' parameter, now nobody's, is deleted.
    const parameters = join(dir, "manifests/security-parameters.yaml");
    const parametersText = await readFile(parameters, "utf8");
    const contractor = parametersText.indexOf("---\nkind: SecurityParameter\nname: Contractor Parameter");
    expect(contractor).toBeGreaterThan(0);
    await writeFile(
      parameters,
      `${parametersText.slice(0, contractor)}---\nkind: SecurityParameter\nname: Contractor Parameter\nensure: absent\n`,
    );
    const third = await planSaveApply(dir, "local-prod", join(dir, "third.json"));
    expect(third).toEqual(["delete SecurityParameter/Contractor Parameter"]);
  }, 120_000);

  it("a release's promotion, then its rollback, each from a saved plan file", async () => {
    const [dev, test] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const dir = await testdir({
      "egp.yaml": egpYamlFor("./store"),
      "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
      "environments/dev.yaml": environmentFile(dev.url, QUICK),
      "environments/test.yaml": environmentFile(test.url, ["release: 2026-11-r1", ...QUICK]),
    });
    const run = (args: string[]) => egp([...args, "--dir", dir], { env: ENV });
    const release = await run(["release", "create", "--from", "dev", "--name", "2026-11-r1"]);
    expect(release.code, release.stdout + release.stderr).toBe(0);
    expect(ruleOf(test)).toBe("Risk_Score >= 20");

    const promoted = await planSaveApply(dir, "test", join(dir, "release.json"));
    expect(promoted).toEqual(["promote Package/GRC Core"]);
    expect(ruleOf(test)).toBe("Risk_Score >= 15");

    // The rollback's plan is saved without changing anything, and run later as saved.
    const file = join(dir, "rollback.json");
    const planned = await run(["rollback", "--env", "test", "--plan-only", "--out", file]);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toContain(
      `Saved the rollback's plan to ${file}; run it with 'egp rollback ${file}'.`,
    );
    expect(ruleOf(test)).toBe("Risk_Score >= 15");
    const saved = JSON.parse(await readFile(file, "utf8")) as { changes: { id: string; action: string }[] };
    expect(saved.changes.map((change) => `${change.action} ${change.id}`)).toEqual([
      "rollback Package/GRC Core",
    ]);

    // It is not a plan `egp apply` runs: that would plan from the manifests instead.
    const misapplied = await run(["apply", file]);
    expect(misapplied.code).toBe(1);
    expect(lines(misapplied.stderr)).toEqual([
      `egp: EGP_APPLY_REFUSED ${file} is a rollback's plan; run it with 'egp rollback ${file}'`,
    ]);

    // Nor does `egp rollback FILE` run a plan that is not a rollback's.
    const promotion = join(dir, "release.json");
    const notRollback = await run(["rollback", promotion]);
    expect(notRollback.code).toBe(1);
    expect(lines(notRollback.stderr)).toEqual([
      `egp: EGP_APPLY_REFUSED ${promotion} is not a rollback's plan (apply it with 'egp apply ${promotion}')`,
    ]);

    const rolledBack = await run(["rollback", file]);
    expect(rolledBack.code, rolledBack.stdout + rolledBack.stderr).toBe(0);
    expect(rolledBack.stdout).toContain("Rollback complete");
    expect(ruleOf(test)).toBe("Risk_Score >= 20");

    // The same file again: the target it was planned against has changed since.
    const again = await run(["rollback", file]);
    expect(again.code).toBe(1);
    expect(lines(again.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_PLAN_STALE the saved plan [0-9a-f]{16} is stale: the live state of test changed since it was made \(no longer: Package\/GRC Core:rollback\)\. Run egp rollback --env test --plan-only --out FILE again\.$/,
      ),
    ]);
  }, 120_000);
});
