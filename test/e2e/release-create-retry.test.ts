import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, environmentFile, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `release create` builds each package once on its source: a 429 on generate is tried again, and a
 * run killed once the package exists is followed by one that reuses it, leaving no duplicate.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };
const NAME = "2026-12-r1";
const startOne = emulatorsPerTest();
const created = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).filter((p) => p.Origin === "Created");

async function repository(dev: Emulator): Promise<string> {
  return testdir({
    "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
    "environments/dev.yaml": environmentFile(dev.url),
  });
}

const create = (dir: string) =>
  egp(["release", "create", "--from", "dev", "--name", NAME, "--dir", dir], { env: ENV });

describe("release create on a source that pushes back", () => {
  it("tries a generate answered 429 again, and builds one package", async () => {
    const dev = await startOne({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } });
    dev.faults.script({
      method: "POST",
      path: "/core/package/generate",
      times: 1,
      action: { status: 429, retryAfter: 1 },
    });
    const dir = await repository(dev);
    const made = await create(dir);
    expect(made.stderr + made.stdout).toContain(`Release ${NAME} created from dev`);
    expect(made.code).toBe(0);
    expect(dev.faults.stats.byKind["429"]).toBe(1);
    expect(created(dev)).toHaveLength(1);
  }, 60_000);

  it("reuses the package a killed run created, named for its release", async () => {
    const dev = await startOne({ seed: "demo-dev", jobs: { generateMs: 3_000, installMs: 20 } });
    const dir = await repository(dev);
    const journal = join(dir, ".egp/release-create", `${NAME}.json`);
    const killed = await new Promise<boolean>((resolve) => {
      const child = spawn(
        process.execPath,
        [join(ROOT, "bin/egp.js"), "release", "create", "--from", "dev", "--name", NAME, "--dir", dir],
        { env: { PATH: process.env.PATH ?? "", ...ENV }, stdio: "ignore" },
      );
      const timer = setInterval(() => {
        if (existsSync(journal)) child.kill("SIGKILL");
      }, 20);
      child.on("exit", (_code, signal) => {
        clearInterval(timer);
        resolve(signal === "SIGKILL");
      });
    });
    expect(killed).toBe(true);
    expect(created(dev)).toHaveLength(1);
    expect(created(dev)[0]?.Name).toBe(`GRC Core (release ${NAME})`);

    const again = await create(dir);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toMatch(/Reusing package \d+ \("GRC Core \(release 2026-12-r1\)"\)/);
    expect(created(dev)).toHaveLength(1);
    expect(existsSync(journal)).toBe(false);
  }, 90_000);
});
