import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { createClient } from "../../src/index.ts";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * "A typo'd CI secret must never lock the service account" (DESIGN §3): runs with a wrong password
 * against an account that locks after five failed logins leave it able to log in, and each run says
 * so in one line. At two failed logins per run, the third plan locked it.
 */

const PASSWORD = "Login#Once2026";
const WRONG = "Typo#In2026Secret";

describe("egp with a wrong password", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, seed: "empty", adminPassword: PASSWORD });
    const record = emulator.store.userByName("sysadmin");
    const parameter = record && emulator.store.parameterFor(record);
    if (!parameter) throw new Error("no security parameter for sysadmin");
    parameter.MaximumFailedLoginAttempts = 5;
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it("costs one failed login per run: three plans and an apply leave the account able to log in", async () => {
    // A user with groups: the plan reads more than the early reads, which logged in again.
    const dir = await testdir({
      "environments/prod.yaml": environmentFile(emulator.url, ["groups: { Everyone: 1 }"]),
      "manifests/users.yaml": [
        "kind: User",
        "userName: anguyen",
        "firstName: Alice",
        "lastName: Nguyen",
        "status: active",
        "groups: [Everyone]",
        "",
      ].join("\n"),
    });
    const runs = [
      ["plan", "--env", "prod"],
      ["plan", "--env", "prod"],
      ["plan", "--env", "prod"],
      ["apply", "--env", "prod", "--yes"],
    ];
    for (const args of runs) {
      const run = await egp(args, { cwd: dir, env: { EGP_TEST_PASSWORD: WRONG } });
      expect(run.code, run.stderr).toBe(1);
      expect(lines(run.stderr), run.stderr).toEqual([
        expect.stringMatching(
          /^egp: EGP_LOGIN_FAILED prod: the login as sysadmin was refused \(ValidationMessageTemplates:LoginNotValid: .*\); no further login was tried, so that the account does not get locked$/,
        ),
      ]);
      expect(run.stderr + run.stdout).not.toContain(WRONG);
    }
    expect(emulator.store.userByName("sysadmin")?.failedLogins).toBe(4);
    const client = createClient({
      url: emulator.url,
      instance: "Default",
      username: "sysadmin",
      password: PASSWORD,
      logger: pino({ level: "silent" }),
    });
    try {
      await expect(client.security.login()).resolves.toMatchObject({ SessionToken: expect.any(String) });
    } finally {
      await client.close();
    }
  });
});
