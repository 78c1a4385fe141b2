import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, exampleTree, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Two egp processes that need the same embedded environment: `apply --env local-prod` opens
 * local-dev too, as its package source. Both have `.egp/local-dev.json` open at once (SQLite's
 * locks order their commits) and neither waits for the other to end.
 */
describe("two applies at once on the example repository", () => {
  it("keep each other's writes: drift finds nothing a plan would change on either environment afterwards", {
    timeout: 120_000,
  }, async () => {
    const dir = await testdir(exampleTree());
    const [prod, dev] = await Promise.all([
      egp(["apply", "--env", "local-prod", "--yes", "--dir", dir]),
      egp(["apply", "--env", "local-dev", "--yes", "--dir", dir]),
    ]);
    // A failure shows the end of what the run printed: the step that failed and the plan left.
    const told = (run: { stdout: string; stderr: string }) =>
      `${run.stdout.split("\n").slice(-40).join("\n")}\n${run.stderr}`;
    expect(prod.code, told(prod)).toBe(0);
    expect(dev.code, told(dev)).toBe(0);
    expect(prod.stdout).toContain("Verified: local-prod matches the manifests.");
    expect(dev.stdout).toContain("Verified: local-dev matches the manifests.");
    // Nobody waited for the other to end, so nobody said so.
    expect(lines(prod.stderr)).toEqual([]);
    expect(lines(dev.stderr)).toEqual([]);

    const [driftDev, driftProd] = await Promise.all([
      egp(["drift", "--env", "local-dev", "--dir", dir]),
      egp(["drift", "--env", "local-prod", "--format", "json", "--dir", dir]),
    ]);
    expect(driftDev.code, driftDev.stdout).toBe(0);
    // Nothing for a plan to change; what only prod has (no install removes it) stays open.
    const prodDrift = JSON.parse(driftProd.stdout);
    expect(prodDrift.summary.drift, driftProd.stdout).toBe(0);
    expect(prodDrift.findings.every((f: { onlyOnTarget?: boolean }) => f.onlyOnTarget)).toBe(true);
    // Nothing temporary is left in .egp/: the data files, the lock folder and the takeover mutexes only.
    expect(
      readdirSync(join(dir, ".egp")).filter((name) => /(\.(tmp|log|lock|migrating)|-wal|-shm)$/.test(name)),
    ).toEqual([]);
  });
});

describe("an apply lock file that names no holder", () => {
  it("holding null: apply says so in one line naming the file, exits 1 and leaves it", async () => {
    const dir = await testdir(exampleTree());
    const lock = join(dir, ".egp", "locks", "local-dev.lock");
    mkdirSync(join(dir, ".egp", "locks"), { recursive: true });
    writeFileSync(lock, "null");
    const run = await egp(["apply", "--env", "local-dev", "--yes", "--dir", dir]);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `egp: EGP_LOCKED local-dev cannot be locked: the lock file ${lock} is unreadable (it does not name a pid, host and command); if no egp process is using it, delete it`,
    ]);
    expect(readFileSync(lock, "utf8")).toBe("null");
  });
});
