import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { egp, lines, releasePipelineFiles } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { egpYamlFor, SIGNING_ENV } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A rejected release is a state, not an outage: `status` still reads the instances that name it
 * (version, drift, and the rejection), `drift` still reports the other kinds, and `release list`
 * shows a rolled-back verification as a rollback, over HTTP against emulators.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!", EGP_ACTOR: "carol", ...SIGNING_ENV };
const NAME = "2026-12-r1";
const startOne = emulatorsPerTest();
const temp: string[] = [];
afterAll(() => Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true }))));

async function emulator(seed: string) {
  const workDir = await mkdtemp(join(tmpdir(), "egp-rejected-views-"));
  temp.push(workDir);
  return startOne({ seed, workDir, jobs: { generateMs: 20, installMs: 20 } });
}

/** A user prod lacks and one it holds otherwise, managed on prod only: drift of another kind than the release's. */
const MISSING_USER = [
  "kind: User",
  "userName: anguyen",
  "firstName: Alice",
  "lastName: Nguyen",
  "title: Chief Risk Officer",
  "environments: [prod]",
  "---",
  "kind: User",
  "userName: jdoe",
  "firstName: Jane",
  "lastName: Doe",
  "status: active",
  "securityParameter: General User Parameter",
  "environments: [prod]",
  "",
].join("\n");

describe("views of a rejected and rolled-back release", () => {
  it("status reads the instances, drift reports the other kinds, release list shows the rollback", async () => {
    const [dev, test, prod] = await Promise.all([
      emulator("demo-dev"),
      emulator("demo-prod"),
      emulator("demo-prod"),
    ]);
    const dir = await testdir({
      "egp.yaml": egpYamlFor("./store"),
      ...(await releasePipelineFiles({ dev: dev.url, test: test.url, prod: prod.url }, NAME)),
    });
    temp.push(dir);
    const run = (args: string[]) => egp([...args, "--dir", dir], { env: ENV });
    const created = await run(["release", "create", "--from", "dev", "--name", NAME]);
    expect(created.code, created.stderr).toBe(0);
    for (const env of ["test", "prod"]) {
      const applied = await run(["apply", "--env", env, "--yes"]);
      expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    }
    const rollback = await run(["rollback", "--env", "prod", "--yes"]);
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(0);

    // Verified on test; on prod it was verified and then rolled back, which is not "verified on prod".
    // Soft: the views of the rejection below are checked whatever the listing says.
    const list = await run(["release", "list"]);
    expect(list.code, list.stderr).toBe(0);
    expect
      .soft(lines(list.stdout)[1])
      .toMatch(new RegExp(`^${NAME}\\s+\\S+\\s+dev\\s+GRC Core\\s+test; prod rolled back at \\d{4}-\\S+Z$`));
    const [listed] = lines((await run(["release", "list", "--json"])).stdout).map((l) => JSON.parse(l));
    expect.soft(listed.verifiedOn.map((v: { environment: string }) => v.environment)).toEqual(["test"]);
    expect.soft(listed.rolledBack).toEqual([{ environment: "prod", at: expect.any(String), to: null }]);

    const rejected = await run(["release", "reject", NAME, "--reason", "breaks single sign-on"]);
    expect(rejected.code, rejected.stderr).toBe(0);
    await writeFile(join(dir, "manifests/users.yaml"), MISSING_USER);

    // Both instances answer: they are read, with their version, drift and the rejection.
    const status = await run(["status"]);
    const rows = lines(status.stdout);
    expect(rows[2]).toMatch(
      new RegExp(`^test\\s+drifted\\s+6\\.14\\.0\\s+1 \\(unchecked 1\\)\\s+release ${NAME} \\(rejected\\)`),
    );
    expect(rows[3]).toMatch(
      new RegExp(
        `^prod\\s+drifted\\s+6\\.14\\.0\\s+\\d+ \\(User \\d+, unchecked 1\\)\\s+release ${NAME} \\(rejected\\)`,
      ),
    );
    expect(status.stdout).toMatch(
      new RegExp(`^prod: release ${NAME} was rejected by carol at \\S+: breaks single sign-on`, "m"),
    );
    expect(status.stdout).toContain("3 environments: 1 matching, 2 drifted, 0 unreachable");
    expect(status.code, status.stderr).toBe(2);
    const report = JSON.parse((await run(["status", "--format", "json"])).stdout);
    const [, testRow, prodRow] = report.environments;
    for (const row of [testRow, prodRow])
      expect(row).toMatchObject({
        reachable: true,
        version: "6.14.0",
        rejected: { release: NAME, message: expect.stringContaining("breaks single sign-on") },
      });
    // The release's packages were not compared: that is open, as the user is.
    expect(prodRow.drift).toEqual({ User: expect.any(Number), unchecked: 1 });
    const html = await run(["status", "--format", "html"]);
    expect(html.stdout).toMatch(/<tr data-env="prod" data-status="drifted">/);
    expect(html.stdout).toContain(`<td class="wants rejected">release ${NAME} (rejected)</td>`);

    // The nightly drift job reports the user, says the release is rejected, and exits by what it found.
    const drift = await run(["drift", "--env", "prod"]);
    expect(drift.stderr).not.toContain("EGP_RELEASE_REJECTED");
    expect(drift.code).toBe(2);
    expect(drift.stdout).toMatch(
      new RegExp(`^Release ${NAME} is rejected: its packages are not compared`, "m"),
    );
    expect(drift.stdout).toContain('+ User "jdoe"');
    const prodJson = JSON.parse((await run(["drift", "--env", "prod", "--format", "json"])).stdout);
    expect(prodJson.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "User", object: "jdoe" }),
        // A user changed behind egp's back is still reported.
        expect.objectContaining({ kind: "User", object: "anguyen", part: "Title" }),
        expect.objectContaining({
          kind: "unchecked",
          object: `packages (release ${NAME})`,
          unchecked: expect.stringContaining("breaks single sign-on"),
        }),
      ]),
    );
    // Nothing else differs on test, but its release's packages could not be compared: not "no drift".
    const unchecked = await run(["drift", "--env", "test", "--format", "json"]);
    expect(unchecked.code, unchecked.stderr).toBe(2);
    const testJson = JSON.parse(unchecked.stdout);
    expect(testJson.rejectedRelease).toMatchObject({ release: NAME });
    expect(testJson.findings.map((f: { kind: string }) => f.kind)).toEqual(["unchecked"]);

    // plan and apply still refuse it.
    const plan = await run(["plan", "--env", "prod"]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/^egp: EGP_RELEASE_REJECTED /m);
  }, 180_000);
});
