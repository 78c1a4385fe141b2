import { createHash, randomBytes } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, exampleOnEmulators, lines, releasePipelineFiles } from "../helpers/cli.ts";
import { editRule } from "../helpers/demo-edits.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { type Registry, startRegistry } from "../helpers/registry.ts";
import { egpYamlFor, SIGNING_ENV } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Releases: built once on dev, promoted as the same bytes to test and then prod, gated on test's
 * verification, with history and rollback read from the release store on any machine. The store
 * is a parameter: EGP_TEST_RELEASE_STORE (a folder or an oci:// address) runs the same test against
 * another store; by default a temp folder.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!", ...SIGNING_ENV };
const NAME = "2026-11-r1";
const startOne = emulatorsPerTest();
const temp: string[] = [];
afterAll(() => Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "egp-releases-"));
  temp.push(dir);
  return dir;
}

async function emulator(seed: string): Promise<Emulator & { workDir: string }> {
  const workDir = await tempDir();
  const started = await startOne({ seed, workDir, jobs: { generateMs: 20, installMs: 20 } });
  return Object.assign(started, { workDir });
}

const packages = (e: Emulator) => Object.values(packagesOf(e.store).byId);
const created = (e: Emulator) => packages(e).filter((p) => p.Origin === "Created");
const installs = (e: Emulator) => packages(e).reduce((n, p) => n + p.Installs.length, 0);

/** The sha256 of every package file uploaded to an instance and installed there. */
async function installedDigests(e: Emulator & { workDir: string }): Promise<string[]> {
  const uploaded = packages(e).filter((p) => p.Origin === "Uploaded" && p.Installs.length > 0 && p.File);
  return Promise.all(
    uploaded.map(async (p) =>
      createHash("sha256")
        .update(await readFile(join(e.workDir, p.File as string)))
        .digest("hex"),
    ),
  );
}

const ruleOf = (e: Emulator) =>
  catalogueOf(e.store)
    .all("eventRules")
    .find((r) => r.Name === "Escalate critical risks")?.Condition;

/** A real OCI registry on 127.0.0.1, started for the registry's round of the main test. */
let registry: Registry | undefined;
afterAll(() => registry?.stop());

async function storeOf(kind: "folder" | "oci"): Promise<string> {
  if (process.env.EGP_TEST_RELEASE_STORE) return process.env.EGP_TEST_RELEASE_STORE;
  if (kind === "folder") return join(await tempDir(), "store");
  registry ??= await startRegistry();
  return `oci://${registry.host}/egp-releases-${randomBytes(4).toString("hex")}`;
}

async function repository(kind: "folder" | "oci" = "folder"): Promise<{
  dir: string;
  store: string;
  dev: Emulator & { workDir: string };
  test: Emulator & { workDir: string };
  prod: Emulator & { workDir: string };
}> {
  const [dev, test, prod] = await Promise.all([
    emulator("demo-dev"),
    emulator("demo-prod"),
    emulator("demo-prod"),
  ]);
  const store = await storeOf(kind);
  const dir = await testdir({
    "egp.yaml": egpYamlFor(store),
    ...(await releasePipelineFiles({ dev: dev.url, test: test.url, prod: prod.url }, NAME)),
  });
  return { dir, store, dev, test, prod };
}

/** A clone of the repository on another machine: the committed files, no `.egp/`. */
async function cloneOf(dir: string): Promise<string> {
  const clone = await tempDir();
  await cp(dir, clone, { recursive: true, filter: (source) => !source.includes(`${dir}/.egp`) });
  return clone;
}

const run = (dir: string, args: string[]) => egp([...args, "--dir", dir], { env: ENV });

describe("releases: build once, promote the same bytes, roll back from anywhere", () => {
  it.each(["folder", "oci"] as const)(
    "dev → test → prod with the gate, history and rollback from a fresh clone, names never reused (%s store)",
    async (kind) => {
      const { dir, store, dev, test, prod } = await repository(kind);

      const createdRelease = await run(dir, ["release", "create", "--from", "dev", "--name", NAME]);
      expect(createdRelease.stderr + createdRelease.stdout).toContain(`Release ${NAME} created from dev`);
      expect(createdRelease.code).toBe(0);
      const file = await readFile(join(dir, `releases/${NAME}.yaml`), "utf8");
      const sha256 = /sha256: ([0-9a-f]{64})/.exec(file)?.[1];
      expect(sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(file).toContain("name: GRC Core");
      expect(file).toMatch(/parts:\n/);
      expect(created(dev)).toHaveLength(1);

      // prod requires the release verified on test: refused, in one line, before test ran it.
      for (const command of [
        ["plan", "--env", "prod"],
        ["apply", "--env", "prod", "--yes"],
      ]) {
        const refused = await run(dir, command);
        expect(refused.code).toBe(1);
        expect(lines(refused.stderr)).toEqual([
          `egp: EGP_RELEASE_NOT_VERIFIED release ${NAME} has not been verified on test (requiresVerifiedOn in environments/prod.yaml)`,
        ]);
      }
      expect(installs(prod)).toBe(0);

      const plannedTest = await run(dir, ["plan", "--env", "test"]);
      expect(plannedTest.code).toBe(0);
      expect(plannedTest.stdout).toContain(`release ${NAME} (built on dev`);
      expect(plannedTest.stdout).toContain('~ event rule "Escalate critical risks": changed [critical]');

      const appliedTest = await run(dir, ["apply", "--env", "test", "--yes"]);
      expect(appliedTest.code, appliedTest.stdout + appliedTest.stderr).toBe(0);
      expect(appliedTest.stdout + appliedTest.stderr).toContain(`Verified: test runs release ${NAME}`);
      expect(ruleOf(test)).toBe("Risk_Score >= 15");

      // dev changes after the release: prod must get what test verified, not this.
      editRule(dev, "Risk_Score >= 10");
      const devPackages = created(dev).length;
      const testPackages = created(test).length;
      const appliedProd = await run(dir, ["apply", "--env", "prod", "--yes"]);
      expect(appliedProd.code, appliedProd.stdout + appliedProd.stderr).toBe(0);
      expect(ruleOf(prod)).toBe("Risk_Score >= 15");
      expect(created(dev)).toHaveLength(devPackages);
      expect(created(test)).toHaveLength(testPackages);
      expect(created(prod).map((p) => p.Name)).toEqual(["GRC Core (egp snapshot)"]);
      expect(await installedDigests(prod)).toEqual([sha256]);
      expect(await installedDigests(test)).toEqual([sha256]);

      // Another machine: the committed files and the store, no .egp/.
      const clone = await cloneOf(dir);
      const history = await run(clone, ["history", "--env", "prod"]);
      expect(history.code, history.stderr).toBe(0);
      expect(lines(history.stdout)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^install [0-9a-f]{12} of release ${NAME}, package "GRC Core", installed \\S+; snapshot of .*Risk Register`,
          ),
        ),
      ]);
      const rollback = await run(clone, ["rollback", "--env", "prod", "--yes"]);
      expect(rollback.code, rollback.stdout + rollback.stderr).toBe(0);
      expect(rollback.stdout).toContain("Rollback complete");
      expect(ruleOf(prod)).toBe("Risk_Score >= 20");
      const rolledBack = await run(dir, ["releases", "--env", "prod"]);
      expect(rolledBack.stdout).toMatch(/; rolled back \S+\n$/);

      // The same plan again after the rollback is a new install with an entry of its own.
      const again = await run(clone, ["apply", "--env", "prod", "--yes"]);
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(ruleOf(prod)).toBe("Risk_Score >= 15");
      const twice = await run(dir, ["history", "--env", "prod", "--json"]);
      const entries = lines(twice.stdout).map((line) => JSON.parse(line));
      expect(entries).toHaveLength(2);
      expect(entries[0].rollbacks).toEqual([]);
      expect(entries[1].rollbacks).toHaveLength(1);
      expect(new Set(entries.map((e) => e.id)).size).toBe(2);

      // A name is never reused: refused by the committed file, and by the store without it.
      const reused = await run(dir, ["release", "create", "--from", "dev", "--name", NAME]);
      expect(reused.code).toBe(1);
      expect(lines(reused.stderr)).toEqual([
        `egp: EGP_STORE_EXISTS release ${NAME} already exists (releases/${NAME}.yaml): a release name is never reused; pick another`,
      ]);
      const withoutFile = await cloneOf(dir);
      await rm(join(withoutFile, `releases/${NAME}.yaml`));
      const reusedInStore = await run(withoutFile, ["release", "create", "--from", "dev", "--name", NAME]);
      expect(reusedInStore.code).toBe(1);
      expect(reusedInStore.stderr).toMatch(
        new RegExp(`^egp: EGP_STORE_EXISTS release ${NAME} already exists \\(in the store `),
      );
      expect(created(dev)).toHaveLength(devPackages);

      if (!store.startsWith("oci://")) {
        // A store file altered: a machine without the file in its cache refuses to install it.
        await run(clone, ["rollback", "--env", "prod", "--yes"]);
        const blob = join(store, "blobs", "sha256", sha256 as string);
        const original = await readFile(blob);
        await writeFile(blob, Buffer.concat([original, Buffer.from("tampered")]));
        const before = installs(prod);
        const altered = await run(await cloneOf(dir), ["apply", "--env", "prod", "--yes"]);
        expect(altered.code).toBe(1);
        expect(altered.stdout + altered.stderr).toMatch(/it was altered; egp does not use it/);
        expect(installs(prod)).toBe(before);
        await writeFile(blob, original);
      }
    },
    240_000,
  );

  it("refuses a release whose committed file and the store disagree", async () => {
    const { dir } = await repository();
    const createdRelease = await run(dir, ["release", "create", "--from", "dev", "--name", NAME]);
    expect(createdRelease.code, createdRelease.stderr).toBe(0);
    const path = join(dir, `releases/${NAME}.yaml`);
    const text = await readFile(path, "utf8");
    // Malformed: refused at its position.
    await writeFile(path, text.replace(/sha256: [0-9a-f]{64}/, `sha256: ${"0".repeat(64)}`));
    const malformed = await run(dir, ["plan", "--env", "test"]);
    expect(malformed.code).toBe(1);
    expect(lines(malformed.stderr)).toEqual([
      `egp: EGP_MANIFEST_INVALID releases/${NAME}.yaml:10:13 packages[0].sha256: expected text, got an integer`,
    ]);
    await writeFile(path, text.replace(/sha256: [0-9a-f]{64}/, `sha256: ${"a".repeat(64)}`));
    const refused = await run(dir, ["plan", "--env", "test"]);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^egp: EGP_RELEASE_MISMATCH release ${NAME} in the store .* is not the committed one \\(package "GRC Core" is sha256 [0-9a-f]{64} there and a{64} in releases/${NAME}\\.yaml\\); egp does not install it$`,
        ),
      ),
    ]);
  }, 120_000);

  it("a live promotion (packagesFrom): promote → rollback → promote is a second entry, and a fresh clone rolls back", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    const store = process.env.EGP_TEST_RELEASE_STORE ?? join(await tempDir(), "store");
    await writeFile(join(dir, "egp.yaml"), egpYamlFor(store));
    const PROD = ["--env", "local-prod"];
    for (const step of [
      ["apply", ...PROD, "--yes"],
      ["rollback", ...PROD, "--yes"],
      ["apply", ...PROD, "--yes"],
    ]) {
      const ran = await run(dir, step);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    }
    const history = await run(dir, ["history", ...PROD]);
    expect(lines(history.stdout)).toEqual([
      expect.stringMatching(
        /^install [0-9a-f]{12} of package "GRC Core" from local-dev, installed \S+; snapshot of [^;]+$/,
      ),
      expect.stringMatching(
        /^install [0-9a-f]{12} of package "GRC Core" from local-dev, installed .*; rolled back \S+$/,
      ),
    ]);

    // A CI runner that did not promote: the repository and the store, an empty .egp/.
    const clone = await cloneOf(dir);
    const listed = await run(clone, ["releases", ...PROD]);
    expect(listed.stdout).toBe(history.stdout);
    const rollback = await run(clone, ["rollback", ...PROD, "--yes"]);
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(0);
    expect(rollback.stdout).toContain("Rollback complete");
    const plan = await run(clone, ["plan", ...PROD, "--detailed-exitcode"]);
    expect(plan.code).toBe(2);
  }, 180_000);
});
