import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { egp, environmentFile, lines, QUICK, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { type Registry, startRegistry } from "../helpers/registry.ts";
import { egpYamlFor, SIGNING_ENV } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * An OCI store's create-once record is checked, written and read back after `releases.settle`: a
 * create whose check-to-write window reached it can't be sure it won, writes no release file, and
 * `release create --adopt NAME` writes the file from the record that stands.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!", ...SIGNING_ENV };
const NAME = "2026-12-r1";
const startOne = emulatorsPerTest();
let registry: Registry | undefined;
afterAll(() => registry?.stop());

describe("release create on an OCI store that could not be sure", () => {
  it("names --adopt, and --adopt writes the release file from the store's record", async () => {
    registry = await startRegistry();
    const dev = await startOne({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } });
    const reference = `oci://${registry.host}/egp-adopt`;
    const dir = await testdir({
      // A settle time no check-to-write window stays under: every create is unsure.
      "egp.yaml": `${egpYamlFor(reference)}  settle: 1ms\n`,
      "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
      "environments/dev.yaml": environmentFile(dev.url, QUICK),
      "environments/test.yaml": environmentFile(dev.url, [`release: ${NAME}`, ...QUICK]),
    });
    const run = (args: string[]) => egp([...args, "--dir", dir], { env: ENV });
    const unsure = await run(["release", "create", "--from", "dev", "--name", NAME]);
    expect(unsure.code).toBe(1);
    expect(lines(unsure.stderr).filter((l) => l.startsWith("egp: "))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^egp: EGP_STORE_UNAVAILABLE creating releases/${NAME} in the store .* took \\d+ ms from check to write, too long to be sure .*; once no other run is creating ${NAME}, 'egp release create --adopt ${NAME}' writes releases/${NAME}\\.yaml from the record that stands$`,
        ),
      ),
    ]);
    await expect(readFile(join(dir, `releases/${NAME}.yaml`))).rejects.toThrow(/ENOENT/);

    const adopted = await run(["release", "create", "--adopt", NAME]);
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(adopted.stdout).toContain(`Release ${NAME} created from dev: releases/${NAME}.yaml`);
    const file = await readFile(join(dir, `releases/${NAME}.yaml`), "utf8");
    expect(file).toMatch(/sha256: [0-9a-f]{64}/);
    const planned = await run(["plan", "--env", "test"]);
    expect(planned.code, planned.stderr).toBe(0);
    const audit = await run(["audit"]);
    expect(audit.stdout).toMatch(
      /^ {4}reason: adopted: releases\/2026-12-r1\.yaml written from the store's record$/m,
    );

    const again = await run(["release", "create", "--adopt", NAME]);
    expect(again.code).toBe(1);
    expect(lines(again.stderr)).toEqual([
      `egp: EGP_STORE_EXISTS release ${NAME} already exists (releases/${NAME}.yaml): a release name is never reused; pick another`,
    ]);
  }, 120_000);

  it("refuses releases.settle for a folder store", async () => {
    const dir = await testdir({
      "egp.yaml": "releases:\n  store: ./store\n  settle: 5s\n",
      "environments/dev.yaml": environmentFile("embedded:demo-dev"),
    });
    const validated = await egp(["validate", "--dir", dir], { env: ENV });
    expect(validated.code).toBe(1);
    expect(validated.stderr + validated.stdout).toContain("settle");
    expect(validated.stderr + validated.stdout).toContain("applies to an oci:// store only");
  });
});
