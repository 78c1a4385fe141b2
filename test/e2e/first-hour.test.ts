// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, environmentFile, exampleTree, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/* What a new user meets in the first hour, each message as it should read. */

/** The emulator's first lines, then it is stopped. */
async function banner(env: Record<string, string>, args: string[] = []): Promise<string> {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin/egp.js"), "emulator", "--port", "0", "--seed", "empty", ...args],
    {
      env: { PATH: process.env.PATH ?? "", ...env },
    },
  );
  let out = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
    if (out.split("\n").length > 3) child.kill();
  });
  await once(child, "exit");
  return out;
}

const start = emulatorsPerTest();

describe("the first hour", () => {
  it("the emulator's banner names the administrator and where the password comes from, never a chosen one", async () => {
    expect(await banner({})).toContain(
      "log in as sysadmin, password Password1! (the default; set another with --admin-password or EGP_EMULATOR_PASSWORD)",
    );
    const chosen = await banner({ EGP_EMULATOR_PASSWORD: "Chosen-Pw-42!" });
    expect(chosen).toContain("log in as sysadmin, password from EGP_EMULATOR_PASSWORD");
    expect(chosen).not.toContain("Chosen-Pw-42!");
    const given = await banner({}, ["--admin-password", "Given-Pw-43!"]);
    expect(given).toContain("log in as sysadmin, password as given by --admin-password");
    expect(given).not.toContain("Given-Pw-43!");
  });

  it("a --target that matches nothing says so, and never that the environment matches", async () => {
    const dir = await testdir(exampleTree({ persist: false }));
    const plan = await egp(["plan", "--env", "local-prod", "--target", "User/zz*", "--dir", dir]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(
      /^--target User\/zz\* matches none of the \d+ objects the plan read: nothing is planned/m,
    );
    expect(plan.stdout).not.toContain("No changes");
    expect(plan.stdout).not.toContain("partial plan: 0 of");
  });

  it("a wrong password shows as a refused login, not as unreachable", async () => {
    const emulator = await start({ seed: "empty" });
    const dir = await testdir({ "environments/dev.yaml": environmentFile(emulator.url) });
    const status = await egp(["status", "--dir", dir], { env: { EGP_TEST_PASSWORD: "not-the-password" } });
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/^dev\s+login refused\s/m);
  });

  it("a release in the default store says that no other machine can fetch it, and how to share one", async () => {
    const dir = await testdir(exampleTree({ persist: false }));
    const created = await egp(["release", "create", "--from", "local-dev", "--name", "r1", "--dir", dir]);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("Note: the release's files are in .egp/store, on this machine only");
    expect(created.stdout).toContain("releases: { store: oci://");
  });

  it("validate refuses a release with no file, and points at an unset variable without failing", async () => {
    const tree = exampleTree({ persist: false });
    tree["environments/test.yaml"] =
      'url: embedded:demo-prod\ninstance: Default\nauth: { username: sysadmin, password: "${TEST_PW}" }\nrelease: 2026-11-r2\n';
    const dir = await testdir(tree);
    const run = await egp(["validate", "--dir", dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "environments/test.yaml:4:10 release: no such release file releases/2026-11-r2.yaml",
    );
    expect(run.stderr).toContain(
      "warning: environments/test.yaml:3:39 auth.password: environment variable TEST_PW is not set here",
    );
  });
});
