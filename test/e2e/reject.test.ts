import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, environmentFile, QUICK, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/* A rejected release is refused by plan and apply everywhere, and the rejection is audited. */

const ENV = { EGP_TEST_PASSWORD: "Password1!", EGP_ACTOR: "carol" };
const start = emulatorsPerTest();
const jobs = { generateMs: 20, installMs: 20 };

describe("egp release reject", () => {
  it("refuses plan and apply of an environment naming a rejected release, with the reason", async () => {
    const [dev, prod] = await Promise.all([
      start({ seed: "demo-dev", jobs }),
      start({ seed: "demo-prod", jobs }),
    ]);
    const dir = await testdir({
      "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
      "environments/dev.yaml": environmentFile(dev.url, QUICK),
      "environments/prod.yaml": environmentFile(prod.url, ["release: r1", ...QUICK]),
    });
    const run = (args: string[]) => egp([...args, "--dir", dir], { env: ENV });
    expect((await run(["release", "create", "--from", "dev", "--name", "r1"])).code).toBe(0);
    expect((await run(["plan", "--env", "prod"])).code).toBe(0);

    const rejected = await run(["release", "reject", "r1", "--reason", "breaks single sign-on"]);
    expect(rejected.stderr).toBe("");
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toContain("Release r1 rejected: breaks single sign-on.");
    const again = await run(["release", "reject", "r1", "--reason", "twice"]);
    expect(again.stdout).toMatch(/^Release r1 was already rejected by carol at \S+: breaks single sign-on$/m);

    for (const command of [
      ["plan", "--env", "prod"],
      ["apply", "--env", "prod", "--yes"],
    ]) {
      const refused = await run(command);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^egp: EGP_RELEASE_REJECTED release r1 was rejected by carol at \S+: breaks single sign-on; egp never promotes it: name another release in environments\/prod\.yaml$/m,
      );
    }
    const listed = await run(["release", "list"]);
    expect(listed.stdout).toMatch(/^r1 .*rejected$/m);
    expect(listed.stdout).toMatch(/^r1: rejected by carol at \S+: breaks single sign-on$/m);
    const audit = await run(["audit"]);
    expect(audit.stdout).toMatch(/^#2 \S+ carol reject: recorded$/m);
    expect(audit.stdout).toContain("reason: breaks single sign-on");

    // A rejection edited in the store still refuses, and says it can't be believed.
    const file = join(dir, ".egp/store/records/rejected/r1.json");
    const record = JSON.parse(await readFile(file, "utf8"));
    await writeFile(file, JSON.stringify({ ...record, reason: "edited" }));
    const still = await run(["plan", "--env", "prod"]);
    expect(still.code).toBe(1);
    expect(still.stderr).toContain(
      "(the rejection record is unauthenticated: its signature does not match its content",
    );

    const unknown = await run(["release", "reject", "r9", "--reason", "x"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no release r9");
  }, 120_000);
});
