import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { egp, exampleOnEmulators, type Run } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { generatedOn, swapGenerated } from "../helpers/swap-package.ts";

/*
 * DESIGN §3: package files are opaque, and the emulator's extras may speed egp up, never change a
 * result. The same objects packaged by the default profile (egp's emulator's own layout) and by the
 * foreign one (a layout egp has never seen) give the same plan, the same verdict and the same
 * refusal. The target is a default-profile instance in both runs, so that the package file is the
 * one thing that differs.
 */

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };
const PROFILES = ["default", "foreign"] as const;
type Profile = (typeof PROFILES)[number];

const startOne = emulatorsPerTest();
const workDirs: string[] = [];
afterAll(() => {
  for (const dir of workDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Pair {
  dev: Emulator;
  devDir: string;
  dir: string;
  run(args: string[]): Promise<Run>;
}

/** demo-dev packaging with `profile`, demo-prod on the default profile, and the example on them. */
async function pair(profile: Profile): Promise<Pair> {
  const devDir = mkdtempSync(join(tmpdir(), "egp-profile-dev-"));
  workDirs.push(devDir);
  const jobs = { generateMs: 20, installMs: 20 };
  const [dev, prod] = await Promise.all([
    startOne({ seed: "demo-dev", profile, jobs, workDir: devDir }),
    startOne({ seed: "demo-prod", jobs }),
  ]);
  const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
  // The instances' addresses are the one thing that differs between the runs' texts.
  const masked = (text: string) => text.replaceAll(dev.url, "<dev>").replaceAll(prod.url, "<prod>");
  return {
    dev,
    devDir,
    dir,
    run: async (args) => {
      const result = await egp([...args, "--dir", dir], { env: ENV });
      return { ...result, stdout: masked(result.stdout), stderr: masked(result.stderr) };
    },
  };
}

/**
 * A plan file's JSON without what differs between any two runs: when it was made, and what hashes
 * the environment files (its id and the manifests' digest), which hold each run's instance addresses.
 */
function comparable(plan: { createdAt: string; id: string; digests: { manifests: string } }): unknown {
  expect(plan.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  return { ...plan, createdAt: "<time>", id: "<id>", digests: { ...plan.digests, manifests: "<digest>" } };
}

/** What an apply concluded: its exit code, each step that failed, and its closing lines. */
function verdictOf(applied: Run): { code: number; lines: string[] } {
  const lines = applied.stdout
    .split("\n")
    .filter((line) => /: FAILED: |^Apply |^Verified|^Not |^Rollback point/.test(line));
  return { code: applied.code, lines };
}

/** The same scenario with each profile as the source, at once: what each run gave, by profile. */
async function byProfile<T>(scenario: (profile: Profile) => Promise<T>): Promise<Record<Profile, T>> {
  const [byDefault, byForeign] = await Promise.all(PROFILES.map(scenario));
  return { default: byDefault as T, foreign: byForeign as T };
}

describe("the same objects packaged by the default and by the foreign profile", () => {
  it("give the same plan (text and JSON), the same apply verdict, and then no changes", async () => {
    const seen = await byProfile(async (profile) => {
      const { run } = await pair(profile);
      const [text, json] = await Promise.all([
        run(["plan", "--env", "local-prod"]),
        run(["plan", "--env", "local-prod", "--format", "json"]),
      ]);
      expect(text.code, text.stderr).toBe(0);
      expect(json.code, json.stderr).toBe(0);
      const applied = await run(["apply", "--env", "local-prod", "--yes"]);
      const after = await run(["plan", "--env", "local-prod"]);
      return {
        plan: text.stdout,
        json: comparable(JSON.parse(json.stdout)),
        verdict: verdictOf(applied),
        after: after.stdout,
      };
    });
    expect(seen.default.plan).toContain('# Package "GRC Core" will be promoted');
    expect(seen.default.verdict.code).toBe(0);
    expect(seen.default.after).toContain("No changes.");
    expect(seen.foreign).toEqual(seen.default);
  }, 120_000);

  it("refuse the same way a package file without the objects asked for", async () => {
    const seen = await byProfile(async (profile) => {
      const { dev, devDir, run } = await pair(profile);
      // The source hands over a package of Controls alone for the GRC Core package egp asked for.
      const controlsOnly = await generatedOn(
        dev,
        devDir,
        [{ Guid: demoGuid("controls"), Type: "Application" }],
        PASSWORD,
      );
      const swap = swapGenerated(dev, devDir, controlsOnly);
      const applied = await run(["apply", "--env", "local-prod", "--yes"]);
      expect(swap.swapped).toHaveLength(1);
      return verdictOf(applied);
    });
    expect(seen.default.code).toBe(1);
    // The file passes inspection whatever its layout; the target refuses to install from it the
    // objects it lacks, and nothing of the package is installed.
    expect(seen.default.lines.join("\n")).toMatch(
      /^Package\/GRC Core#install \(local-prod\): FAILED: EGP_VALIDATION .* is not in package \d+\./m,
    );
    expect(seen.foreign).toEqual(seen.default);
  }, 120_000);
});
