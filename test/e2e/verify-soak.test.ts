import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contentOf } from "../../src/emulator/content/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { egp, environmentFile, lines, QUICK, ROOT, UNCAPPED } from "../helpers/cli.ts";
import { editRule } from "../helpers/demo-edits.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { egpYamlFor, SIGNING_ENV } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A soak: test's verification of the release counts for prod's `requiresVerifiedOn` only once
 * `egp verify`, after test's `verify.soak`, finds the release's parts as the apply left them.
 * The emulators are reached over HTTP; a change during the soak is made by a direct call to one.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!", ...SIGNING_ENV };
const NAME = "2026-12-r1";
const SOAK_MS = 2_000;
const startOne = emulatorsPerTest();
const temp: string[] = [];
afterAll(() => Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true }))));

async function emulator(seed: string): Promise<Emulator> {
  const workDir = await mkdtemp(join(tmpdir(), "egp-soak-"));
  temp.push(workDir);
  return startOne({ seed, workDir, jobs: { generateMs: 20, installMs: 20 } });
}

/** dev builds the release; test runs it with a 2 s soak; prod requires it verified on test (QUICK: cli.ts). */
async function repository(
  verify = "verify: { soak: 2s, interval: 200ms }",
): Promise<{ dir: string; test: Emulator }> {
  const [dev, test, prod] = await Promise.all([
    emulator("demo-dev"),
    emulator("demo-prod"),
    emulator("demo-prod"),
  ]);
  const store = join(await mkdtemp(join(tmpdir(), "egp-soak-store-")), "store");
  temp.push(store);
  const dir = await testdir({
    "egp.yaml": egpYamlFor(store),
    "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
    "environments/dev.yaml": environmentFile(dev.url, QUICK),
    "environments/test.yaml": environmentFile(test.url, [`release: ${NAME}`, verify, UNCAPPED]),
    "environments/prod.yaml": environmentFile(prod.url, [
      `release: ${NAME}`,
      "requiresVerifiedOn: [test]",
      ...QUICK,
    ]),
  });
  return { dir, test };
}

const run = (dir: string, args: string[]) => egp([...args, "--dir", dir], { env: ENV });

/** The release built on dev and applied to test, where it now soaks. */
async function soaking(verify?: string): Promise<{ dir: string; test: Emulator; applied: string }> {
  const { dir, test } = await repository(verify);
  const created = await run(dir, ["release", "create", "--from", "dev", "--name", NAME]);
  expect(created.code, created.stdout + created.stderr).toBe(0);
  const applied = await run(dir, ["apply", "--env", "test", "--yes"]);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  return { dir, test, applied: applied.stdout + applied.stderr };
}

/** test's listing of the release (`release list --json`). */
async function listed(
  dir: string,
): Promise<{ verifiedOn: unknown[]; verifying: unknown[]; notVerified: unknown[] }> {
  const list = await run(dir, ["release", "list", "--json"]);
  expect(list.code, list.stderr).toBe(0);
  const releases = lines(list.stdout).map((line) => JSON.parse(line) as { name: string });
  return releases.find((r) => r.name === NAME) as never;
}

/** When test's soak ends, as `release list` says. */
async function soakEnd(dir: string): Promise<number> {
  const [verifying] = (await listed(dir)).verifying as Array<{ soakUntil: string }>;
  if (!verifying) throw new Error("test is not soaking");
  return Date.parse(verifying.soakUntil);
}

const pastTheSoakAt = (end: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now()) + 100));

/** Waits until test's soak has ended. */
async function pastTheSoak(dir: string): Promise<void> {
  const end = await soakEnd(dir);
  expect(end - Date.now()).toBeLessThanOrEqual(SOAK_MS);
  await pastTheSoakAt(end);
}

describe("a soak before a verification counts", () => {
  it("soak: 2s: the apply records test as verifying, and prod's requiresVerifiedOn stays shut meanwhile", async () => {
    const { dir, applied } = await soaking();
    expect(applied).toMatch(
      /Verified, soaking: test runs release 2026-12-r1.*'egp verify --env test' after \S+Z/,
    );

    const list = await run(dir, ["release", "list"]);
    expect(list.stdout).toMatch(/test verifying \(soak until \S+Z\)/);
    const status = await run(dir, ["status", "--env", "test"]);
    expect(status.stdout).toMatch(/release 2026-12-r1, verifying \(soak until \S+Z\)/);

    const prod = await run(dir, ["plan", "--env", "prod"]);
    expect(prod.code).toBe(1);
    expect(lines(prod.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_RELEASE_NOT_VERIFIED release 2026-12-r1 has not been verified on test: test is soaking until \S+Z \(requiresVerifiedOn in environments\/prod.yaml\)$/,
      ),
    ]);
  }, 180_000);

  it("egp verify before the soak ends exits 1 soaking until, records nothing; after it, records verified and prod's gate opens", async () => {
    const { dir } = await soaking();
    // The CLI's clock starts a minute before the soak's end: a loaded machine may take 2 s to start it.
    const early = await egp(["verify", "--env", "test", "--dir", dir], {
      env: ENV,
      now: new Date((await soakEnd(dir)) - 60_000),
    });
    expect(early.code).toBe(1);
    expect(lines(early.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_SOAKING release 2026-12-r1 on test is soaking until \S+Z; run egp verify after it$/,
      ),
    ]);
    expect((await listed(dir)).verifying).toHaveLength(1);

    await pastTheSoak(dir);
    const verified = await run(dir, ["verify", "--env", "test"]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toBe(
      "Verified: test runs release 2026-12-r1; nothing changed during the soak.\n",
    );
    const after = await listed(dir);
    expect(after.verifiedOn).toEqual([{ environment: "test", verifiedAt: expect.any(String) }]);
    expect(after.verifying).toEqual([]);
    expect((await run(dir, ["release", "list"])).stdout).toMatch(/GRC Core\s+test\n/);

    const again = await run(dir, ["verify", "--env", "test"]);
    expect(again.code).toBe(1);
    expect(lines(again.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_NOT_SOAKING nothing soaks on test: release 2026-12-r1 is verified there since \S+Z$/,
      ),
    ]);

    const audit = await run(dir, ["audit", "--format", "json"]);
    expect(audit.stdout).toMatch(/"action": "verify",[^}]*"environment": "test"/s);
    const prod = await run(dir, ["plan", "--env", "prod"]);
    expect(prod.code, prod.stderr).toBe(0);
  }, 180_000);

  it("a part changed on test during the soak: egp verify records not verified and prod's gate stays shut", async () => {
    const { dir, test } = await soaking();
    editRule(test, "Risk_Score >= 12");
    await pastTheSoak(dir);
    const checked = await run(dir, ["verify", "--env", "test"]);
    expect(checked.code).toBe(1);
    expect(lines(checked.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_SOAK_CHANGED release 2026-12-r1 is not verified on test: changed during the soak: Package\/GRC Core/,
      ),
    ]);
    expect((await listed(dir)).notVerified).toEqual([
      {
        environment: "test",
        at: expect.any(String),
        reason: expect.stringContaining("changed during the soak"),
      },
    ]);
    expect((await run(dir, ["release", "list"])).stdout).toContain(
      "test not verified (changed during the soak",
    );

    const prod = await run(dir, ["plan", "--env", "prod"]);
    expect(prod.code).toBe(1);
    expect(prod.stderr).toContain(
      "has not been verified on test: test is not verified (changed during the soak: Package/GRC Core",
    );
  }, 180_000);

  it("an apply during the soak ends it: from a saved plan or with nothing to install it soaks anew, a partial one leaves it not verified", async () => {
    const { dir, test } = await soaking();
    const first = await soakEnd(dir);

    // A part changed by hand, put back by an apply of the plan saved for it.
    editRule(test, "Risk_Score >= 12");
    const planned = await run(dir, ["plan", "--env", "test", "--out", join(dir, "plan.json")]);
    expect(planned.code, planned.stderr).toBe(0);
    const saved = await egp(["apply", join(dir, "plan.json"), "--dir", dir], { env: ENV });
    const said = saved.stdout + saved.stderr;
    expect(saved.code, said).toBe(0);
    expect(said).toContain(
      "The soak of release 2026-12-r1 on test ends here: recorded not verified (an apply during the soak).",
    );
    expect(said).toContain("Verified, soaking: test runs release 2026-12-r1");
    const second = await soakEnd(dir);
    expect(second).toBeGreaterThan(first);

    const unchanged = await run(dir, ["apply", "--env", "test", "--yes"]);
    expect(unchanged.stdout + unchanged.stderr).toContain("The soak of release 2026-12-r1 on test ends here");
    expect(unchanged.stdout + unchanged.stderr).toContain("Verified, soaking:");
    expect(await soakEnd(dir)).toBeGreaterThan(second);

    // A partial apply does not verify the release: the soak it ended stays not verified.
    const partial = await run(dir, ["apply", "--env", "test", "--yes", "--target", "Package/GRC Core"]);
    expect(partial.code, partial.stdout + partial.stderr).toBe(0);
    expect(partial.stdout + partial.stderr).not.toContain("Verified");
    expect((await listed(dir)).notVerified).toEqual([
      { environment: "test", at: expect.any(String), reason: "an apply to test started during the soak" },
    ]);
    await pastTheSoakAt(second);
    const verify = await run(dir, ["verify", "--env", "test"]);
    expect(verify.code).toBe(1);
    expect(lines(verify.stderr)).toEqual([
      "egp: EGP_NOT_SOAKING nothing soaks on test: release 2026-12-r1 is not verified there (an apply to test started during the soak); apply it again to start a new soak",
    ]);
    const prod = await run(dir, ["plan", "--env", "prod"]);
    expect(prod.code).toBe(1);
    expect(prod.stderr).toContain("test is not verified (an apply to test started during the soak)");
  }, 240_000);

  it("a check of behaviour that fails after the soak: egp verify records not verified naming it", async () => {
    const checks = [
      "verify:",
      "  soak: 2s",
      "  interval: 200ms",
      "  checks:",
      "    - workflow:",
      "        record: { application: Risk Register, key: { Risk Name: Cloud provider outage } }",
      "        node: Review",
      "        transitions: [Approve, Reject]",
    ].join("\n");
    const { dir, test } = await soaking(checks);
    const workflow = Object.values(contentOf(test.store).workflows).find((w) => w.Name === "Risk Review");
    const review = workflow?.Nodes.find((node) => node.Name === "Review");
    if (!review) throw new Error("the demo seed has no Review node");
    review.Transitions = review.Transitions.filter((transition) => transition.Name !== "Reject");
    await pastTheSoak(dir);
    const checked = await run(dir, ["verify", "--env", "test"]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(
      /^egp: EGP_SOAK_CHANGED release 2026-12-r1 is not verified on test: changed during the soak: check workflow of Risk Register "Cloud provider outage" at Review: "Reject" is not offered at Review/,
    );
    expect((await listed(dir)).notVerified).toHaveLength(1);
  }, 180_000);
});
