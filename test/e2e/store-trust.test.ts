import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { isPublicKey, Keyring, OciStore } from "../../src/store/index.ts";
import {
  egp,
  environmentFile,
  exampleOnEmulators,
  lines,
  QUICK,
  ROOT,
  releasePipelineFiles,
} from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { type Registry, startRegistry } from "../helpers/registry.ts";
import { egpYamlFor, SIGNING_ENV, TEST_KEYS } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * What the release store holds is believed only when signed: a verification counts for the instance
 * its environment file names, and rollback uses no history record it can't check.
 */

const PASSWORD = { EGP_TEST_PASSWORD: "Password1!" };
const ENV = { ...PASSWORD, ...SIGNING_ENV };
const NAME = "2026-11-r1";
const startOne = emulatorsPerTest();
const temp: string[] = [];
afterAll(() => Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "egp-trust-"));
  temp.push(dir);
  return dir;
}

const emulator = (seed: string) => startOne({ seed, jobs: { generateMs: 20, installMs: 20 } });
const installs = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).reduce((n, p) => n + p.Installs.length, 0);
const run = (dir: string, args: string[]) => egp([...args, "--dir", dir], { env: ENV });

describe("requiresVerifiedOn believes only a signed verification of the instance the file names", () => {
  it("refuses a verification made on a throwaway instance, and a hand-written one", async () => {
    const [dev, test, throwaway, prod] = await Promise.all([
      emulator("demo-dev"),
      emulator("demo-prod"),
      emulator("demo-prod"),
      emulator("demo-prod"),
    ]);
    const store = join(await tempDir(), "store");
    const testFile = environmentFile(test.url, [`release: ${NAME}`, ...QUICK]);
    const dir = await testdir({
      "egp.yaml": egpYamlFor(store),
      "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
      "environments/dev.yaml": environmentFile(dev.url, QUICK),
      "environments/test.yaml": testFile,
      "environments/prod.yaml": environmentFile(prod.url, [
        `release: ${NAME}`,
        "requiresVerifiedOn: [test]",
        ...QUICK,
      ]),
    });
    expect((await run(dir, ["release", "create", "--from", "dev", "--name", NAME])).code).toBe(0);

    // test.yaml pointed at a throwaway instance for one apply, then restored.
    await writeFile(
      join(dir, "environments/test.yaml"),
      environmentFile(throwaway.url, [`release: ${NAME}`, ...QUICK]),
    );
    const elsewhere = await run(dir, ["apply", "--env", "test", "--yes"]);
    expect(elsewhere.code, elsewhere.stdout + elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout).toContain(`Verified: test runs release ${NAME}`);
    await writeFile(join(dir, "environments/test.yaml"), testFile);
    const gated = await run(dir, ["plan", "--env", "prod"]);
    expect(gated.code).toBe(1);
    expect(lines(gated.stderr)).toEqual([
      `egp: EGP_RELEASE_NOT_VERIFIED release ${NAME} has not been verified on test: the store's verification of test was made on another instance than environments/test.yaml names (requiresVerifiedOn in environments/prod.yaml)`,
    ]);

    // A verification written by hand, naming the right instance and the right bytes: not signed.
    const path = join(store, "records", "verified", NAME, "test.json");
    const written = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    const { signature: _dropped, ...unsigned } = written;
    const testId = createHash("sha256").update(`egp instance\0${test.url}\0Default`).digest("hex");
    await writeFile(path, JSON.stringify({ ...unsigned, instance: testId }));
    const forged = await run(dir, ["apply", "--env", "prod", "--yes"]);
    expect(forged.code).toBe(1);
    expect(lines(forged.stderr)).toEqual([
      `egp: EGP_RELEASE_NOT_VERIFIED release ${NAME} has not been verified on test: the store's verification of test is not used: it is not signed (requiresVerifiedOn in environments/prod.yaml)`,
    ]);
    expect(installs(prod)).toBe(0);

    // Verified on the instance the file names: prod's gate passes.
    const verified = await run(dir, ["apply", "--env", "test", "--yes"]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const planned = await run(dir, ["plan", "--env", "prod"]);
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);
  }, 180_000);
});

describe("rollback believes no history record it can't check", () => {
  it("refuses a newer unsigned record with a crafted snapshot, installs nothing, and history marks it", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    const applied = await run(dir, ["apply", "--env", "local-prod", "--yes"]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const before = installs(prod);

    const store = join(dir, ".egp/store");
    const folder = join(store, "records/history/local-prod");
    const [genuine] = await readdir(folder);
    const record = JSON.parse(await readFile(join(folder, genuine as string), "utf8")) as Record<
      string,
      unknown
    > & {
      snapshot: Record<string, unknown>;
    };
    const crafted = Buffer.from("PK crafted zip: description PWNED");
    const digest = createHash("sha256").update(crafted).digest("hex");
    mkdirSync(join(store, "blobs/sha256"), { recursive: true });
    await writeFile(join(store, "blobs/sha256", digest), crafted);
    const { signature: _dropped, ...unsigned } = record;
    await writeFile(
      join(folder, "999999999999.json"),
      JSON.stringify({
        ...unsigned,
        id: "999999999999",
        startedAt: "2099-01-01T00:00:00.000Z",
        snapshot: { ...record.snapshot, digest },
        rollbacks: [],
      }),
    );

    const history = await run(dir, ["history", "--env", "local-prod"]);
    expect(history.code).toBe(0);
    expect(lines(history.stdout)[0]).toMatch(
      /^install 999999999999 .*\[NOT TRUSTED: it is not signed; rollback does not use it\]$/,
    );
    expect(lines(history.stdout)[1]).not.toContain("NOT TRUSTED");

    const rollback = await run(dir, ["rollback", "--env", "local-prod", "--yes"]);
    expect(rollback.code).toBe(1);
    expect(lines(rollback.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_RECORD_UNTRUSTED install 999999999999 of local-prod in the store .* is not used: it is not signed; see 'egp history --env local-prod'$/,
      ),
    ]);
    expect(installs(prod)).toBe(before);

    // The signed install is still the way back.
    const named = await run(dir, [
      "rollback",
      "--env",
      "local-prod",
      "--to",
      (genuine as string).slice(0, 12),
      "--yes",
    ]);
    expect(named.code, named.stdout + named.stderr).toBe(0);
    expect(named.stdout).toContain("Rollback complete");
  }, 120_000);
});

describe("a store shared between machines", () => {
  it("takes a configured key before its first record: without EGP_SIGNING_KEY nothing is written, with it another machine believes the verification", async () => {
    const [dev, test, prod] = await Promise.all([
      emulator("demo-dev"),
      emulator("demo-prod"),
      emulator("demo-prod"),
    ]);
    const store = join(await tempDir(), "store");
    const files = {
      ...(await releasePipelineFiles({ dev: dev.url, test: test.url, prod: prod.url }, NAME)),
    };
    // Two machines: each its own home (its own local key), both the same store.
    const machine = async (egpYaml: string, more: Record<string, string> = {}) => ({
      dir: await testdir({ ...files, ...more, "egp.yaml": egpYaml }),
      env: { ...PASSWORD, XDG_CONFIG_HOME: await tempDir() },
    });
    const storeLine = `releases:\n  store: ${JSON.stringify(store)}\n`;
    const one = await machine(storeLine);
    const on = (m: { dir: string; env: Record<string, string> }, args: string[], extra = {}) =>
      egp([...args, "--dir", m.dir], { env: { ...m.env, ...extra } });
    const required = new RegExp(
      `^egp: EGP_SIGNING_KEY_REQUIRED the release store ${store} is shared, .*'egp keys'`,
    );

    // Without a key: refused before dev builds anything, and nothing reaches the store.
    const keyless = await on(one, ["release", "create", "--from", "dev", "--name", NAME]);
    expect(keyless.code).toBe(1);
    expect(lines(keyless.stderr)).toEqual([expect.stringMatching(required)]);
    expect(Object.values(packagesOf(dev.store).byId).filter((p) => p.Origin === "Created")).toEqual([]);
    await expect(readdir(store)).rejects.toThrow(/ENOENT/);

    // With a configured key, listed in egp.yaml: machine two believes machine one's verification.
    const keys = await egp(["keys"]);
    const publicKey = /^Public key: (\S+)$/m.exec(keys.stdout)?.[1] ?? "";
    const privateKey = lines(keys.stdout).at(-1) ?? "";
    const trusting = `${storeLine}  trustedKeys: ["${publicKey}"]\n`;
    await writeFile(join(one.dir, "egp.yaml"), trusting);
    const signing = { EGP_SIGNING_KEY: privateKey };
    const made = await on(one, ["release", "create", "--from", "dev", "--name", NAME], signing);
    expect(made.code, made.stderr).toBe(0);
    const releaseFile = await readFile(join(one.dir, `releases/${NAME}.yaml`), "utf8");

    // An apply without the key is refused before the instance is written to, as a release is.
    const unsigned = await on(one, ["apply", "--env", "test", "--yes"]);
    expect(unsigned.code).toBe(1);
    expect(lines(unsigned.stderr)).toEqual([expect.stringMatching(required)]);
    expect(installs(test)).toBe(0);

    const verified = await on(one, ["apply", "--env", "test", "--yes"], signing);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const two = await machine(trusting, { [`releases/${NAME}.yaml`]: releaseFile });
    // The verification names its instance by a digest keyed with the signing key: the gate needs it.
    const unkeyed = await on(two, ["plan", "--env", "prod"]);
    expect(unkeyed.code).toBe(1);
    expect(unkeyed.stderr).toContain(
      "the store's verification of test can't be checked here: it names its instance under the key that signed it, and this run signs with another (give it that EGP_SIGNING_KEY)",
    );
    const planned = await on(two, ["plan", "--env", "prod"], signing);
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);
  }, 180_000);
});

describe("release create on a registry, twice at once", () => {
  let registry: Registry | undefined;
  afterAll(() => registry?.stop());

  it("lets one run win: the other exits 1 and writes no release file, and the store keeps the winner's", async () => {
    registry = await startRegistry();
    const dev = await emulator("demo-dev");
    const reference = `oci://${registry.host}/egp-race`;
    const files = {
      "egp.yaml": egpYamlFor(reference),
      "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
      "environments/dev.yaml": environmentFile(dev.url, QUICK),
    };
    const store = new OciStore({ reference });
    try {
      for (const name of ["race1", "race2"]) {
        const dirs = [await testdir(files), await testdir(files)];
        const runs = await Promise.all(
          dirs.map((dir) => run(dir, ["release", "create", "--from", "dev", "--name", name])),
        );
        const winners = runs.flatMap((r, i) => (r.code === 0 ? [i] : []));
        expect(winners, runs.map((r) => r.stderr).join("\n")).toHaveLength(1);
        const winner = winners[0] as number;
        const loser = runs[1 - winner];
        expect(loser?.code).toBe(1);
        // Progress lines come first; the refusal is the one error line.
        expect(lines(loser?.stderr ?? "").filter((l) => l.startsWith("egp: "))).toEqual([
          expect.stringMatching(
            new RegExp(
              `^egp: EGP_STORE_EXISTS (release ${name}|releases/${name}) (already exists|was created by another run at the same time)`,
            ),
          ),
        ]);
        await expect(readFile(join(dirs[1 - winner] as string, `releases/${name}.yaml`))).rejects.toThrow(
          /ENOENT/,
        );
        const file = await readFile(join(dirs[winner] as string, `releases/${name}.yaml`), "utf8");
        const record = (await store.getRecord(`releases/${name}`)) as { packages: { sha256: string }[] };
        expect(file).toContain(`sha256: ${record.packages[0]?.sha256}`);
      }
    } finally {
      await store.close();
    }
  }, 120_000);
});

describe("egp keys", () => {
  it("makes a key pair: the private key in a new 0600 file (never overwritten), the public key as egp.yaml lists it", async () => {
    const dir = await tempDir();
    const file = join(dir, "signing.key");
    const made = await egp(["keys", "--out", file]);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    const publicKey = /^Public key: (ed25519:\S+)$/m.exec(made.stdout)?.[1] ?? "";
    expect(isPublicKey(publicKey)).toBe(true);
    expect(made.stdout).toContain(`releases: { trustedKeys: [ "${publicKey}" ] }`);
    const privateKey = (await readFile(file, "utf8")).trim();
    expect(made.stdout).not.toContain(privateKey);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(new Keyring({ signingKey: privateKey }).signingPublicKey).toBe(publicKey);

    const again = await egp(["keys", "--out", file]);
    expect(again.code).toBe(1);
    expect(lines(again.stderr)).toEqual([
      `egp: EGP_USAGE keys: ${file} exists; egp does not overwrite a key`,
    ]);
    expect((await readFile(file, "utf8")).trim()).toBe(privateKey);
  });

  it("--current names EGP_SIGNING_KEY's public key and whether egp.yaml trusts it, beside the older keys", async () => {
    const old = await egp(["keys"]);
    const oldKey = /^Public key: (\S+)$/m.exec(old.stdout)?.[1] ?? "";
    const dir = await testdir({ "egp.yaml": `releases:\n  store: ./store\n  trustedKeys: ["${oldKey}"]\n` });
    const current = (extra: Record<string, string>) =>
      egp(["keys", "--current", "--dir", dir], { env: extra });
    const rotated = await current(SIGNING_ENV);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(lines(rotated.stdout)).toEqual([
      `Public key of EGP_SIGNING_KEY: ${TEST_KEYS.publicKey}`,
      "egp.yaml does not list it: add it to releases.trustedKeys, or no other machine believes what it signs.",
      `Also trusted (keep each while the records it signed are evidence): ${oldKey}`,
    ]);
    await writeFile(join(dir, "egp.yaml"), egpYamlFor("./store"));
    expect(lines((await current(SIGNING_ENV)).stdout)[1]).toBe(
      "egp.yaml lists it under releases.trustedKeys.",
    );
    const none = await current({});
    expect(none.code).toBe(1);
    expect(lines(none.stderr)).toEqual([
      "egp: EGP_USAGE keys --current: EGP_SIGNING_KEY is not set; 'egp keys' makes a key",
    ]);
  });
});
