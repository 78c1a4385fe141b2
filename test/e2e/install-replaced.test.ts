import { spawn } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, exampleOnEmulators, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";

/*
 * An install a killed run left unfinished, on an instance replaced since (its package answers
 * 404): the next apply says so in one line and plans from the live state, instead of waiting for a
 * job that can't end there until timeouts.job runs out.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };
const startOne = emulatorsPerTest();
const installs = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).reduce((n, p) => n + p.Installs.length, 0);

describe("egp apply after a SIGKILL during an install, on an instance replaced since", () => {
  it("gives the install up with one line and applies", async () => {
    const [dev, prod, replacement] = await Promise.all([
      startOne({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } }),
      startOne({ seed: "demo-prod", jobs: { generateMs: 20, installMs: 60_000 } }),
      startOne({ seed: "demo-prod", jobs: { generateMs: 20, installMs: 20 } }),
    ]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    const killed = await new Promise<boolean>((resolve) => {
      const child = spawn(
        process.execPath,
        [join(ROOT, "bin/egp.js"), "apply", "--env", "local-prod", "--yes", "--dir", dir],
        { env: { PATH: process.env.PATH ?? "", ...ENV }, stdio: "ignore" },
      );
      const timer = setInterval(() => {
        if (installs(prod) > 0) child.kill("SIGKILL");
      }, 20);
      child.on("exit", (_code, signal) => {
        clearInterval(timer);
        resolve(signal === "SIGKILL");
      });
    });
    expect(killed).toBe(true);

    // The next apply runs where the killed run's journal is not (a fresh CI runner), with its store.
    await rm(join(dir, ".egp/journal"), { recursive: true, force: true });
    // The instance is replaced: the same environment now answers from a fresh one.
    const file = join(dir, "environments/local-prod.yaml");
    await writeFile(file, (await readFile(file, "utf8")).replace(prod.url, replacement.url));
    const started = Date.now();
    const next = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: ENV });
    expect(next.stderr, next.stdout).toBe("");
    expect(next.code, next.stdout).toBe(0);
    expect(next.stdout).toMatch(
      /^The install [0-9a-f]{12} is not waited for: local-prod has no package \d+ \(the instance was replaced since it was asked for\); planning from the live state\.$/m,
    );
    expect(installs(replacement)).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);
});
