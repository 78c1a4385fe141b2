import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localKey } from "../../src/io/local-key.ts";
import { ManifestCache, readRepository, stateKeyFor } from "../../src/manifest/index.ts";
import { egp } from "../helpers/cli.ts";
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
