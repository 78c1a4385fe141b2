import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sealedLine } from "../../src/apply/journal.ts";
import { localKey } from "../../src/io/local-key.ts";
import { ManifestCache, readRepository, stateKeyFor } from "../../src/manifest/index.ts";
import { egp, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * What egp reads back from `.egp/` must be what egp wrote on this machine: an entry that came with
 * the repository (committed with `git add -f`), or sealed with another key, is not used.
 */

const ENVIRONMENT = "url: embedded:empty\n";
const parameter = (length: number) =>
  ["kind: SecurityParameter", "name: Test Parameter", `minPasswordLength: ${length}`, ""].join("\n");

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "pipe" });

const home = () => mkdtempSync(join(tmpdir(), "egp-home-"));

/**
 * A repository whose manifests say 12, with a state entry for them resealed to hold what a manifest
 * saying 4 gives, committed with `git add -f`; then a fresh clone of it.
 */
async function forgedClone(attacker: Record<string, string>): Promise<string> {
  const dir = await testdir({ "environments/dev.yaml": ENVIRONMENT, "manifests/p.yaml": parameter(4) });
  git(dir, "init", "-q");
  expect((await egp(["plan", "--env", "dev", "--dir", dir], { env: attacker })).stdout).toContain(
    "minPasswordLength: 4",
  );
  const forged = await readRepository(dir);
  const cache = new ManifestCache(join(dir, ".egp"), { key: localKey(attacker) });
  const state = cache.lookupState("dev", stateKeyFor(forged, "dev"));
  expect(state?.documents).toHaveLength(1);
  writeFileSync(join(dir, "manifests/p.yaml"), parameter(12));
  const honest = await readRepository(dir);
  if (state) cache.rememberState("dev", stateKeyFor(honest, "dev"), state);
  cache.save();
  git(dir, "add", "-A");
  git(dir, "add", "-f", ".egp/cache/states");
  git(dir, "commit", "-qm", "state");
  const clone = join(await testdir({}), "clone");
  git(dir, "clone", "-q", dir, clone);
  return clone;
}

describe("local state that came with the repository", () => {
  it("is not used when sealed with another user's key: the plan is the manifests'", async () => {
    const clone = await forgedClone({ XDG_CONFIG_HOME: home() });
    const run = await egp(["plan", "--env", "dev", "--dir", clone], { env: { XDG_CONFIG_HOME: home() } });
    expect(run.stdout).toContain("minPasswordLength: 12");
    expect(run.stdout).not.toContain("minPasswordLength: 4");
  });

  it("is not used when git tracks it, even sealed with the same key", async () => {
    const shared = { EGP_STATE_KEY: "k".repeat(40) };
    const clone = await forgedClone(shared);
    const run = await egp(["plan", "--env", "dev", "--dir", clone], { env: shared });
    expect(run.stdout).toContain("minPasswordLength: 12");
    expect(run.stdout).not.toContain("minPasswordLength: 4");
  });
});

const KEYED = { EGP_STATE_KEY: "a-test-key-of-at-least-32-characters" };
const policy = (length: number, attempts: number) =>
  [
    "kind: SecurityParameter",
    "name: Test Parameter",
    `minPasswordLength: ${length}`,
    `maximumFailedLoginAttempts: ${attempts}`,
    "",
  ].join("\n");

/**
 * An environment that matches its manifests (12, lockout after 5), and a journal of a plan that
 * turns lockout off (4, 0), carrying the digests of a plan of today's manifests.
 */
async function forgedJournal(seal: boolean): Promise<{ dir: string; file: string }> {
  const dir = await testdir({
    "environments/f.yaml": "url: embedded:empty?data=.egp/f.json\n",
    "manifests/p.yaml": policy(12, 5),
  });
  const run = (...args: string[]) => egp([...args, "--dir", dir], { env: KEYED });
  expect((await run("apply", "--env", "f", "--yes")).code).toBe(0);
  await run("plan", "--env", "f", "--out", join(dir, "today.json"));
  writeFileSync(join(dir, "manifests/p.yaml"), policy(4, 0));
  await run("plan", "--env", "f", "--out", join(dir, "forged.json"));
  writeFileSync(join(dir, "manifests/p.yaml"), policy(12, 5));
  const today = JSON.parse(readFileSync(join(dir, "today.json"), "utf8")) as { digests: unknown };
  const plan = { ...JSON.parse(readFileSync(join(dir, "forged.json"), "utf8")), digests: today.digests };
  expect(JSON.stringify(plan.steps)).toContain('"MaximumFailedLoginAttempts":0');
  const folder = join(dir, ".egp", "journal", "f");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = join(folder, `${plan.id}.jsonl`);
  const entry = { type: "plan", at: new Date().toISOString(), plan };
  writeFileSync(file, `${seal ? sealedLine(entry, plan.id, localKey(KEYED)) : JSON.stringify(entry)}\n`, {
    mode: 0o600,
  });
  return { dir, file };
}

describe("an apply journal egp did not write as it stands", () => {
  it("hand-written: --resume refuses it in one line, and writes nothing", async () => {
    const { dir, file } = await forgedJournal(false);
    const resumed = await egp(["apply", "--env", "f", "--resume", "--yes", "--dir", dir], { env: KEYED });
    expect(resumed.code).toBe(1);
    expect(resumed.stdout).not.toContain("done");
    expect(lines(resumed.stderr)).toEqual([
      expect.stringContaining(
        `egp: EGP_JOURNAL_UNREADABLE ${file}: egp can't read this apply journal (it was not written by egp`,
      ),
    ]);
    const after = await egp(["plan", "--env", "f", "--dir", dir], { env: KEYED });
    expect(after.stdout).toContain("No changes");
  });

  it("sealed but edited: its plan is not what the manifests and live state give, so nothing is written", async () => {
    const { dir } = await forgedJournal(true);
    const resumed = await egp(["apply", "--env", "f", "--resume", "--yes", "--dir", dir], { env: KEYED });
    expect(resumed.code).toBe(1);
    expect(resumed.stdout).not.toContain("done");
    expect(lines(resumed.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_PLAN_MISMATCH the interrupted plan [0-9a-f]{16} is not what the manifests and the live state give .*SecurityParameter\/Test Parameter#update/,
      ),
    ]);
    const after = await egp(["plan", "--env", "f", "--dir", dir], { env: KEYED });
    expect(after.stdout).toContain("No changes");
  });
});

describe("a home folder egp can't write its key into", () => {
  it("leaves the manifest cache cold: the plan is made as without it", async () => {
    const dir = await testdir({ "environments/dev.yaml": ENVIRONMENT, "manifests/p.yaml": parameter(12) });
    // A config folder under a file: the key can't be made there.
    const blocked = join(dir, "manifests", "p.yaml", "config");
    const run = await egp(["plan", "--env", "dev", "--dir", dir], { env: { XDG_CONFIG_HOME: blocked } });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("minPasswordLength: 12");
  });
});
