import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, environmentFile, lines, QUICK, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A verification names the instance it reached, not the environment file's text: with test's
 * `url: ${TEST_URL}`, a verification made with the variable pointed at a throwaway instance does
 * not open prod's `requiresVerifiedOn` gate once the variable points at test again.
 */

const NAME = "2026-12-r1";
const startOne = emulatorsPerTest();
const emulator = (seed: string) => startOne({ seed, jobs: { generateMs: 20, installMs: 20 } });
const installs = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).reduce((n, p) => n + p.Installs.length, 0);

describe("requiresVerifiedOn checks the instance a verification reached", () => {
  it("refuses a verification made with test's url variable pointed at a throwaway instance", async () => {
    const [dev, test, throwaway, prod] = await Promise.all([
      emulator("demo-dev"),
      emulator("demo-prod"),
      emulator("demo-prod"),
      emulator("demo-prod"),
    ]);
    const dir = await testdir({
      "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
      "environments/dev.yaml": environmentFile(dev.url, QUICK),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: manifest text, not a template.
      "environments/test.yaml": environmentFile("${TEST_URL}", [`release: ${NAME}`, ...QUICK]),
      "environments/prod.yaml": environmentFile(prod.url, [
        `release: ${NAME}`,
        "requiresVerifiedOn: [test]",
        ...QUICK,
      ]),
    });
    const run = (args: string[], testUrl: string) =>
      egp([...args, "--dir", dir], { env: { EGP_TEST_PASSWORD: "Password1!", TEST_URL: testUrl } });
    expect((await run(["release", "create", "--from", "dev", "--name", NAME], test.url)).code).toBe(0);

    const elsewhere = await run(["apply", "--env", "test", "--yes"], throwaway.url);
    expect(elsewhere.code, elsewhere.stdout + elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout).toContain(`Verified: test runs release ${NAME}`);
    const record = await readFile(join(dir, ".egp/store/records/verified", NAME, "test.json"), "utf8");
    expect(record).not.toContain(throwaway.url);
    expect(record).toMatch(/"reached": "[0-9a-f]{64}"/);

    for (const command of [
      ["plan", "--env", "prod"],
      ["apply", "--env", "prod", "--yes"],
    ]) {
      const refused = await run(command, test.url);
      expect(refused.code).toBe(1);
      expect(lines(refused.stderr)).toEqual([
        `egp: EGP_RELEASE_NOT_VERIFIED release ${NAME} has not been verified on test: the store's verification of test was made on another instance than environments/test.yaml reaches now (requiresVerifiedOn in environments/prod.yaml)`,
      ]);
    }
    expect(installs(prod)).toBe(0);

    // test's instance not answering: the verification can't be checked, and the gate stays shut.
    const unreachable = await run(["plan", "--env", "prod"], "http://127.0.0.1:9");
    expect(unreachable.code).toBe(1);
    expect(lines(unreachable.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_RELEASE_NOT_VERIFIED release \S+ has not been verified on test: the store's verification of test can't be checked: the instance environments\/test\.yaml reaches did not answer \(.+\) \(requiresVerifiedOn in environments\/prod\.yaml\)$/,
      ),
    ]);

    // Verified on the instance the variable names when prod is planned: the gate opens.
    const verified = await run(["apply", "--env", "test", "--yes"], test.url);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const planned = await run(["plan", "--env", "prod"], test.url);
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);
  }, 240_000);
});
