import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openProjectStore } from "../../src/compose/project-store.ts";
import { recordRejection } from "../../src/release/rejections.ts";
import { egp, environmentFile, QUICK, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `release reject` writes the rejection, then its audit record: a run killed between the two leaves
 * a rejection the trail does not name, and the next reject of the release writes the record.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!", EGP_ACTOR: "carol" };
const start = emulatorsPerTest();

describe("a reject killed before its audit record", () => {
  it("is completed by the next reject of the release", async () => {
    const dev = await start({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } });
    const dir = await testdir({
      "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
      "environments/dev.yaml": environmentFile(dev.url, QUICK),
    });
    const run = (args: string[]) => egp([...args, "--dir", dir], { env: ENV });
    expect((await run(["release", "create", "--from", "dev", "--name", "r1"])).code).toBe(0);
    // What a reject killed after its first write leaves: the rejection, and no audit record of it.
    const store = await openProjectStore(dir);
    await recordRejection(store, {
      name: "r1",
      reason: "breaks single sign-on",
      at: new Date().toISOString(),
      actor: "carol",
      runUrl: null,
    });
    expect((await run(["audit"])).stdout).not.toMatch(/ reject: /);

    const again = await run(["release", "reject", "r1", "--reason", "again"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Release r1 was already rejected by carol at \S+: breaks single sign-on$/m);
    const audit = await run(["audit"]);
    expect(audit.stdout).toMatch(/^#2 \S+ carol reject: recorded$/m);
    expect(audit.stdout).toMatch(/^ {4}reason: breaks single sign-on$/m);
    expect(audit.stdout).toMatch(/^ {4}release: r1 \(GRC Core [0-9a-f]{64}\)$/m);

    const third = await run(["release", "reject", "r1", "--reason", "third"]);
    expect(third.code).toBe(0);
    expect((await run(["audit"])).stdout.match(/ reject: /g)).toHaveLength(1);
  }, 120_000);
});
