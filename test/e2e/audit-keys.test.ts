import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateSigningKey } from "../../src/store/signing.ts";
import { egp, exampleTree } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * An auditor on another machine (another home, so another local key) is told how many records it
 * cannot verify and why, exit 1, which is not a broken chain; with the signing key's public half
 * trusted in egp.yaml the chain holds there.
 */

const home = () => mkdtemp(join(tmpdir(), "egp-home-"));

describe("an auditor without the trusted key", () => {
  it("counts the records signed with another machine's local key, and never says there are none", async () => {
    const dir = await testdir(exampleTree());
    const writer = { EGP_ACTOR: "alice", HOME: await home() };
    expect((await egp(["apply", "--env", "local-dev", "--yes", "--dir", dir], { env: writer })).code).toBe(0);
    expect((await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: writer })).code).toBe(
      0,
    );
    expect((await egp(["audit", "--dir", dir], { env: writer })).code).toBe(0);

    const auditor = await egp(["audit", "--dir", dir], { env: { HOME: await home() } });
    expect(auditor.code).toBe(1);
    expect(auditor.stdout).not.toContain("No audit records");
    expect(auditor.stdout).not.toContain("broken");
    const line =
      "4 records cannot be verified here (it is signed with another machine's local key (a shared store needs EGP_SIGNING_KEY and releases.trustedKeys))";
    expect(auditor.stdout).toContain(`${line}.`);
    expect(auditor.stderr).toBe(`egp: EGP_AUDIT_UNVERIFIABLE ${line}\n`);
    const csv = await egp(["audit", "--format", "csv", "--dir", dir], { env: { HOME: await home() } });
    expect(csv.stdout.trim().split("\r\n").at(-1)).toBe(`,,,chain,,,unverifiable,,,,${line},,,,,,,`);
  }, 120_000);

  it("verifies a chain signed with EGP_SIGNING_KEY where egp.yaml trusts its public key, and not where it does not", async () => {
    const keys = generateSigningKey();
    const trusting = `releases:\n  trustedKeys: [${JSON.stringify(keys.publicKey)}]\n`;
    const dir = await testdir({ ...exampleTree(), "egp.yaml": trusting });
    const writer = { EGP_ACTOR: "alice", HOME: await home(), EGP_SIGNING_KEY: keys.privateKey };
    expect((await egp(["apply", "--env", "local-dev", "--yes", "--dir", dir], { env: writer })).code).toBe(0);

    const trusted = await egp(["audit", "--dir", dir], { env: { HOME: await home() } });
    expect(trusted.stderr).toBe("");
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toMatch(/^#2 \S+ alice apply local-dev: verified$/m);
    expect(trusted.stdout).toContain("The chain holds");

    await writeFile(join(dir, "egp.yaml"), "releases: {}\n");
    const untrusted = await egp(["audit", "--dir", dir], { env: { HOME: await home() } });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).not.toContain("No audit records");
    expect(untrusted.stderr).toBe(
      "egp: EGP_AUDIT_UNVERIFIABLE 2 records cannot be verified here (it is signed by a key egp.yaml's releases.trustedKeys does not list)\n",
    );
  }, 120_000);
});
