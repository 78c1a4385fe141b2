import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { egp, exampleOnEmulators, ROOT } from "../helpers/cli.ts";

/*
 * `egp apply --yes | head -2`: the reader goes away after a line or two. egp stops writing to it,
 * the apply runs to its end, and the next plan sees nothing pending and nothing to do.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };

let running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.map((e) => e.close()));
  running = [];
});

/** Runs egp with stdout a pipe that is closed as soon as its first bytes arrive. */
function runWithClosedStdout(
  args: string[],
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [join(ROOT, "bin/egp.js"), ...args], {
    env: { PATH: process.env.PATH ?? "", ...ENV },
  });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.once("data", (chunk: Buffer) => {
    stdout = chunk.toString();
    child.stdout.destroy();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr, stdout })));
}

describe("egp apply whose stdout reader goes away", () => {
  it("finishes the apply quietly: no stack trace, nothing pending, nothing left to do", async () => {
    const [dev, prod] = await Promise.all([
      startEmulator({ port: 0, seed: "demo-dev", jobs: { generateMs: 20, installMs: 200 } }),
      startEmulator({ port: 0, seed: "demo-prod", jobs: { generateMs: 20, installMs: 200 } }),
    ]);
    running.push(dev, prod);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { concurrency: 1 });

    const applied = await runWithClosedStdout(["apply", "--env", "local-prod", "--yes", "--dir", dir]);
    expect(applied.stdout).not.toBe("");
    expect(applied.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);

    const after = await egp(["plan", "--env", "local-prod", "--dir", dir], { env: ENV });
    expect(after.stderr).not.toContain("interrupted apply");
    expect(after.stdout).toContain("No changes");
  }, 90_000);
});
