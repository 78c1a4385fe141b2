import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, environmentFile, exampleOnEmulators, QUICK, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { egpYamlFor, SIGNING_ENV } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A run killed while the target's install job runs: the next apply waits for that job before it
 * plans, and the snapshot taken before the first install stays the one rollback installs.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!", ...SIGNING_ENV };
const PROD = ["--env", "local-prod"];
const startOne = emulatorsPerTest();

const installs = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).reduce((n, p) => n + p.Installs.length, 0);
const field = (e: Emulator, name: string) =>
  catalogueOf(e.store)
    .all("fields")
    .find((f) => f.Name === name);

/** Runs `egp apply` and kills it with SIGKILL once `when` holds (checked every 20 ms). */
function killWhen(
  dir: string,
  when: () => boolean,
  env: readonly string[] = PROD,
): Promise<{ output: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, "bin/egp.js"), "apply", ...env, "--yes", "--dir", dir],
      {
        env: { PATH: process.env.PATH ?? "", ...ENV },
      },
    );
    let output = "";
    const take = (chunk: Buffer) => {
      output += chunk.toString();
    };
    const timer = setInterval(() => {
      if (when()) child.kill("SIGKILL");
    }, 20);
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("exit", (_code, signal) => {
      clearInterval(timer);
      resolve({ output, killed: signal === "SIGKILL" });
    });
  });
}

describe("egp apply after a SIGKILL during the install job", () => {
  it("waits for the running install instead of installing again, and rollback restores the versions from before", async () => {
    const [dev, prod] = await Promise.all([
      startOne({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } }),
      // An instance without job status: the next run can only read the target.
      startOne({ seed: "demo-prod", profile: "foreign", jobs: { generateMs: 20, installMs: 3_000 } }),
    ]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    expect(field(prod, "Last Tested")).toBeUndefined();
    const first = await killWhen(dir, () => installs(prod) > 0);
    expect(first.killed).toBe(true);
    expect(installs(prod)).toBe(1);

    const second = await egp(["apply", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("was never seen done: waiting for it before planning");
    expect(installs(prod)).toBe(1);
    expect(field(prod, "Last Tested")?.IsActive).toBe(true);

    const rollback = await egp(["rollback", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(rollback.stdout).not.toContain("Nothing to roll back");
    expect(rollback.code).toBe(0);
    expect(field(prod, "ROLLBACK_Last Tested")?.IsActive).toBe(false);
  }, 60_000);

  it("a release under the emulator's slow-job fault: the next apply waits for that install, installs once, and rollback goes back before it", async () => {
    const [dev, f] = await Promise.all([
      startOne({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } }),
      startOne({ seed: "demo-prod", faults: "jobMs=3000" }),
    ]);
    const dir = await testdir({
      "egp.yaml": egpYamlFor("./store"),
      "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
      "environments/dev.yaml": environmentFile(dev.url, QUICK),
      "environments/f.yaml": environmentFile(f.url, ["release: r1", ...QUICK]),
    });
    const made = await egp(["release", "create", "--from", "dev", "--name", "r1", "--dir", dir], {
      env: ENV,
    });
    expect(made.code, made.stderr).toBe(0);
    const first = await killWhen(dir, () => installs(f) > 0, ["--env", "f"]);
    expect(first.killed).toBe(true);

    const second = await egp(["apply", "--env", "f", "--yes", "--dir", dir], { env: ENV });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain("was never seen done: waiting for it before planning");
    expect(installs(f)).toBe(1);
    expect(field(f, "Last Tested")?.IsActive).toBe(true);

    const rollback = await egp(["rollback", "--env", "f", "--yes", "--dir", dir], { env: ENV });
    expect(rollback.stdout).not.toContain("Nothing to roll back");
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(0);
    expect(field(f, "ROLLBACK_Last Tested")?.IsActive).toBe(false);
  }, 90_000);
});
