import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, exampleOnEmulators } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { readZipEntries } from "../helpers/zip.ts";

/*
 * The main job, drift, history, rollback and compare between two instances that behave like
 * instances egp has never seen (the emulator's `foreign` profile): package files in a layout egp
 * does not read, no package list, read or job status, HTML 404 pages. The same scenarios on the
 * default profile are in apply.test.ts, rollback.test.ts and compare.test.ts.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };
const PROD = ["--env", "local-prod"];
const startOne = emulatorsPerTest();

const foreign = (seed: string): Promise<Emulator> =>
  startOne({ seed, profile: "foreign", jobs: { generateMs: 20, installMs: 20 } });

const installs = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).reduce((n, p) => n + p.Installs.length, 0);

describe("egp against instances that are not its own emulator (profile foreign)", () => {
  it("promotes, finds no drift, rolls back and compares", async () => {
    const [dev, prod] = await Promise.all([foreign("demo-dev"), foreign("demo-prod")]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    const run = (args: string[]) => egp([...args, "--dir", dir], { env: ENV });

    const applied = await run(["apply", ...PROD, "--yes"]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).not.toContain("FAILED");
    expect(applied.stdout).toContain("Apply complete: 2 added, 3 changed, 0 destroyed, 1 promoted.");
    expect(applied.stdout).toContain("Verified: local-prod matches the manifests.");
    // The snapshot and the package are kept by digest, in the instances' own layout.
    const artifacts = readdirSync(join(dir, ".egp/artifacts")).filter((n) => n.endsWith(".zip"));
    expect(artifacts).toHaveLength(2);
    for (const name of artifacts) {
      const entries = [...(await readZipEntries(join(dir, ".egp/artifacts", name))).keys()];
      expect(name).toMatch(/^[0-9a-f]{64}\.zip$/);
      expect(entries).toContain("Package/Definition.dat");
      expect(entries).not.toContain("manifest.json");
    }
    expect(installs(prod)).toBe(1);

    // Nothing for a plan to change; what only local-prod has of the objects stays open (docs/drift.md).
    const drift = await run(["drift", ...PROD]);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    expect(drift.stdout).toContain(
      "Nothing for a plan to change on local-prod, but findings are open (below).",
    );
    expect(drift.stdout).toContain('field "Legacy Control ID" of "Control", only on the target');

    const history = await run(["releases", ...PROD]);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toMatch(
      /of package "GRC Core" from local-dev, installed .*; snapshot of Risk Register, Controls, Policies, Comments;/,
    );

    const rollback = await run(["rollback", ...PROD, "--yes"]);
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(0);
    expect(rollback.stdout).toMatch(
      /Rollback complete: local-prod has the versions of the snapshot of install [0-9a-f]{12} of package "GRC Core" from local-dev again\./,
    );
    expect(rollback.stdout).toMatch(/Verified: every part the snapshot holds reads as it did on /);
    expect(rollback.stdout).toContain(
      'Not undone: created by the promotion; the interface can\'t delete them: Application "Findings".',
    );
    expect(installs(prod)).toBe(2);

    const plan = await run(["plan", ...PROD, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain('# Package "GRC Core" will be promoted');

    const compare = await run(["compare", "--from", "local-dev", "--to", "local-prod"]);
    expect(compare.code, compare.stdout + compare.stderr).toBe(2);
    expect(compare.stdout).toMatch(/~ Application "Controls": /);
    expect(compare.stdout).toContain("local-dev and local-prod differ.");
  });
});
