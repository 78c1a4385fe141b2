import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, exampleTree } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * An install job that succeeded is not an install that is done. The emulator's install faults make
 * one part of the promotion into local-prod late, recalculated or missing (docs/emulator.md); the
 * apply's verification reads until two reads one interval apart agree with the plan, installs again
 * from the same file when they don't, and says which it was.
 */

const PROD = "environments/local-prod.yaml";

/** The example with local-prod's emulator faulted as `faults` says, verified as `verify` says. */
function exampleWith(faults: string, verify: string): Promise<string> {
  const tree = exampleTree();
  tree[PROD] = `${(tree[PROD] ?? "").replace(
    "url: embedded:demo-prod?data=.egp/local-prod.json",
    `url: embedded:demo-prod?data=.egp/local-prod.json&faults=${faults}`,
  )}\nverify: ${verify}\n`;
  return testdir(tree);
}

const apply = (dir: string) => egp(["apply", "--env", "local-prod", "--yes", "--dir", dir]);

/** The release records of local-prod's installs (.egp/releases), as written. */
function installRecords(dir: string): Array<{ verification?: { verdict: string; passes: number } }> {
  const folder = join(dir, ".egp/releases/local-prod");
  return readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .map((name) => JSON.parse(readFileSync(join(folder, name), "utf8")));
}

const verifyLine = (stdout: string) =>
  stdout.split("\n").find((line) => /^Package\/GRC Core#verify \(local-prod\): (done|FAILED)/.test(line));

describe("verification of an install by stable reads", () => {
  it("waits for a part that lands 4 s after the install job and reports converged", async () => {
    const dir = await exampleWith("installLateMs=4000", "{ settle: 20s }");
    const applied = await apply(dir);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(verifyLine(applied.stdout)).toMatch(/done in \d+ ms \(converged\)$/);
    expect(installRecords(dir)[0]?.verification).toMatchObject({ verdict: "converged", passes: 1 });
  }, 120_000);

  it("a part recalculated 4 s after it matched: converged by reads 200 ms apart, diverged by reads 5 s apart", async () => {
    const quick = await exampleWith("installChangeMs=4000", "{ settle: 3s, reinstalls: 0 }");
    const once = await apply(quick);
    expect(once.code, once.stdout + once.stderr).toBe(0);
    expect(verifyLine(once.stdout)).toMatch(/\(converged\)$/);

    const patient = await exampleWith("installChangeMs=4000", "{ interval: 5s, settle: 3s, reinstalls: 1 }");
    const twice = await apply(patient);
    expect(twice.code).toBe(1);
    expect(verifyLine(twice.stdout)).toMatch(
      /FAILED: EGP_INSTALL_DIVERGED after 2 installs, each read for 3 s, these objects did not converge: \S.*\(recalculated\)/,
    );
    expect(twice.stdout).toContain("installing package");
    expect(installRecords(patient)[0]?.verification).toMatchObject({ verdict: "diverged", passes: 2 });
  }, 120_000);

  it("a part dropped by the first install only: converged after re-install, two passes recorded", async () => {
    const dir = await exampleWith("installDrop=first", "{ settle: 2s }");
    const applied = await apply(dir);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(verifyLine(applied.stdout)).toMatch(/\(converged after re-install, 2 installs\)$/);
    expect(installRecords(dir)[0]?.verification).toMatchObject({
      verdict: "converged after re-install",
      passes: 2,
    });
    const audit = await egp(["audit", "--dir", dir, "--format", "json"]);
    expect(audit.stdout).toMatch(/"verdict": "converged after re-install",\s+"passes": 2/);
  }, 120_000);

  it("a part dropped by every install: EGP_INSTALL_DIVERGED, not verified, and rollback restores the snapshot", async () => {
    const dir = await exampleWith("installDrop=every", "{ settle: 2s }");
    const applied = await apply(dir);
    expect(applied.code).toBe(1);
    expect(verifyLine(applied.stdout)).toContain("FAILED: EGP_INSTALL_DIVERGED after 2 installs");
    expect(applied.stdout).not.toContain("Verified:");
    expect(installRecords(dir)[0]?.verification).toMatchObject({ verdict: "diverged", passes: 2 });

    // The instance stops dropping parts; the snapshot taken before the first install is restored.
    const file = join(dir, PROD);
    writeFileSync(file, readFileSync(file, "utf8").replace("&faults=installDrop=every", ""));
    const rollback = await egp(["rollback", "--env", "local-prod", "--yes", "--dir", dir]);
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(0);
    expect(rollback.stdout).toContain("Package/GRC Core#rollback-verify (local-prod): done");
  }, 180_000);
});
