import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, exampleOnEmulators, lines, ROOT, releasePipelineFiles } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Every apply leaves its audit record: one that only verifies, one a gate refuses, one killed after
 * it started writing (its `started` record reads "outcome unknown" until the next apply closes it
 * from the live state).
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };
const NAME = "2026-12-r2";
const startOne = emulatorsPerTest();
const installs = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).reduce((n, p) => n + p.Installs.length, 0);
const run = (dir: string, args: string[]) => egp([...args, "--dir", dir], { env: ENV });

/** Runs `egp apply` and kills it with SIGKILL once `when` holds (checked every 20 ms). */
function killWhen(dir: string, env: string, when: () => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, "bin/egp.js"), "apply", "--env", env, "--yes", "--dir", dir],
      { env: { PATH: process.env.PATH ?? "", ...ENV }, stdio: "ignore" },
    );
    const timer = setInterval(() => {
      if (when()) child.kill("SIGKILL");
    }, 20);
    child.on("exit", (_code, signal) => {
      clearInterval(timer);
      resolve(signal === "SIGKILL");
    });
  });
}

describe("every apply leaves its audit record", () => {
  it("records a verification with nothing to install, and an apply a gate refused", async () => {
    const [dev, test, prod] = await Promise.all([
      startOne({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } }),
      startOne({ seed: "demo-prod", jobs: { generateMs: 20, installMs: 20 } }),
      startOne({ seed: "demo-prod", jobs: { generateMs: 20, installMs: 20 } }),
    ]);
    const dir = await testdir({
      ...(await releasePipelineFiles({ dev: dev.url, test: test.url, prod: prod.url }, NAME)),
    });
    expect((await run(dir, ["release", "create", "--from", "dev", "--name", NAME])).code).toBe(0);
    const refused = await run(dir, ["apply", "--env", "prod", "--yes"]);
    expect(refused.code).toBe(1);
    expect((await run(dir, ["apply", "--env", "test", "--yes"])).code).toBe(0);

    // A saved plan of the release test already runs: nothing to install, a verification recorded.
    expect((await run(dir, ["plan", "--env", "test", "--out", join(dir, "test.plan.json")])).code).toBe(0);
    const saved = await run(dir, ["apply", join(dir, "test.plan.json")]);
    expect(saved.stderr).toBe("");
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain(`Verified: test runs release ${NAME}`);
    expect(installs(test)).toBe(1);

    const audit = await run(dir, ["audit"]);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).toMatch(/^#\d+ \S+ \S+ apply prod: refused$/m);
    expect(audit.stdout).toMatch(/EGP_RELEASE_NOT_VERIFIED/);
    expect(audit.stdout).toMatch(/^#\d+ \S+ \S+ verify test: verified$/m);
    const verify = audit.stdout.slice(audit.stdout.search(/^#\d+ \S+ \S+ verify test/m));
    expect(verify).toMatch(/^ {4}release: 2026-12-r2 \(GRC Core [0-9a-f]{64}\)$/m);
    expect(verify).toMatch(/^ {4}plan sha256: [0-9a-f]{64}$/m);

    // A rollback names the release it undid and the sha256 its release file records.
    const sha256 = /sha256: ([0-9a-f]{64})/.exec(
      await readFile(join(dir, `releases/${NAME}.yaml`), "utf8"),
    )?.[1];
    const rollback = await run(dir, ["rollback", "--env", "test", "--yes"]);
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(0);
    const after = (await run(dir, ["audit", "--env", "test"])).stdout;
    const rolledBack = after.slice(after.search(/^#\d+ \S+ \S+ rollback test: verified$/m));
    expect(rolledBack).toMatch(new RegExp(`^ {4}release: ${NAME} \\(GRC Core ${sha256}\\)$`, "m"));
  }, 180_000);

  it("lists an apply killed after its install started as outcome unknown, until the next apply closes it", async () => {
    const [dev, prod] = await Promise.all([
      startOne({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } }),
      startOne({ seed: "demo-prod", jobs: { generateMs: 20, installMs: 2_000 } }),
    ]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    expect(await killWhen(dir, "local-prod", () => installs(prod) > 0)).toBe(true);

    const open = await run(dir, ["audit", "--env", "local-prod"]);
    expect(open.code, open.stderr).toBe(0);
    expect(lines(open.stdout)).toContainEqual(
      expect.stringMatching(/^#1 \S+ \S+ apply-started local-prod: outcome unknown$/),
    );
    expect(open.stdout).toMatch(/^ {4}plan sha256: [0-9a-f]{64}$/m);
    expect(open.stdout).toContain("promote Package GRC Core");

    const next = await run(dir, ["apply", "--env", "local-prod", "--yes"]);
    expect(next.code, next.stdout + next.stderr).toBe(0);
    const closed = await run(dir, ["audit", "--env", "local-prod"]);
    expect(closed.stdout).not.toContain("outcome unknown");
    expect(closed.stdout).toMatch(/^#1 \S+ \S+ apply-started local-prod: recorded$/m);
    expect(closed.stdout).toMatch(/^#2 \S+ \S+ apply local-prod: closed$/m);
    expect(closed.stdout).toMatch(/^ {4}started: #1$/m);
    expect(closed.stdout).toMatch(
      /^ {4}reason: the apply started at #1 wrote no result; the live state then: local-prod matches its manifests$/m,
    );
    const json = JSON.parse((await run(dir, ["audit", "--format", "json"])).stdout) as {
      records: Array<{ action: string; started?: number }>;
    };
    expect(json.records.filter((r) => r.action === "apply")[0]?.started).toBe(1);
  }, 120_000);
});
