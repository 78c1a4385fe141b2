import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, environmentFile, exampleOnEmulators, lines } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { useSilentServer } from "../helpers/socket.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The environment file's timeouts reach the client: a host that never answers ends in one line.
 * Its job timeout is what a step waits for a package job of that instance.
 */

const silent = useSilentServer();

describe("egp against a host that accepts and never answers", () => {
  it("fails with EGP_TIMEOUT at the environment file's request deadline, in one line", async () => {
    const dir = await testdir({
      "environments/prod.yaml": environmentFile(silent.url(), ["timeouts: { headers: 300ms, request: 1s }"]),
    });
    const run = await egp(["plan", "--env", "prod"], {
      cwd: dir,
      env: { EGP_TEST_PASSWORD: "Any#Pass2026" },
    });
    expect(run.code).toBe(1);
    expect(lines(run.stderr), run.stderr).toEqual([
      expect.stringMatching(/^egp: EGP_TIMEOUT .*\/core\/security\/login: /),
    ]);
  });
});

const startOne = emulatorsPerTest();

/** The example promoted from a quick dev to a prod whose package generation takes `generateMs`. */
async function promotionWithSlowProd(generateMs: number, prodLines: readonly string[]): Promise<string> {
  const [dev, prod] = await Promise.all([
    startOne({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } }),
    startOne({ seed: "demo-prod", jobs: { generateMs, installMs: 20 } }),
  ]);
  const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url });
  await appendFile(join(dir, "environments/local-prod.yaml"), `${prodLines.join("\n")}\n`);
  return dir;
}

describe("egp apply against an instance whose jobs are slow", () => {
  it("gives up on a job at the target's timeouts.job, naming it, and stops the promotion", async () => {
    const dir = await promotionWithSlowProd(4_000, ["timeouts: { job: 2s }"]);
    const run = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], {
      env: { EGP_TEST_PASSWORD: "Password1!" },
    });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(
      /^Package\/GRC Core#snapshot-download \(local-prod\): FAILED: EGP_JOB_TIMEOUT the package to be generated: gave up after 2 s \(timeouts\.job of local-prod\)$/m,
    );
    expect(run.stdout).not.toContain("Package/GRC Core#install (local-prod): started");
  });

  it("waits for a job as long as the target's timeouts.job allows", async () => {
    const dir = await promotionWithSlowProd(3_000, ["timeouts: { job: 20s }"]);
    const run = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], {
      env: { EGP_TEST_PASSWORD: "Password1!" },
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("Package/GRC Core#snapshot-download (local-prod): done");
    expect(run.stdout).toContain("Package/GRC Core#install (local-prod): done");
  });
});
