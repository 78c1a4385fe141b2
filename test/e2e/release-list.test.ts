import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FolderStore, releaseKey, verifiedKey } from "../../src/store/index.ts";
import { egp, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `egp release list` from the committed files and the store alone (no instance is read): every
 * release, where it is verified in pipeline order, what keeps one from being promoted, and names
 * from files and the store printed as data.
 */

const SHA = "a".repeat(64);
const HOSTILE = "GRC \u001b[2JCore";

function releaseFile(name: string, packageName: string, createdAt: string): string {
  return `${JSON.stringify({
    formatVersion: 1,
    name,
    createdAt,
    from: "dev",
    packages: [
      {
        name: packageName,
        sha256: SHA,
        size: 1,
        inactivateUnusedFields: false,
        prefixInactivatedFields: null,
        snapshot: true,
        objects: [],
      },
    ],
  })}\n`;
}

const environment = (extra: string) => `url: http://127.0.0.1:9\ninstance: Default\n${extra}`;

describe("egp release list", () => {
  it("lists releases newest first with where each is verified, in pipeline order, and says what is wrong", async () => {
    const dir = await testdir({
      "egp.yaml": "releases:\n  store: ./store\n",
      "environments/dev.yaml": environment(""),
      "environments/test.yaml": environment("release: r1\n"),
      "environments/prod.yaml": environment("release: r1\nrequiresVerifiedOn: [test]\n"),
      "releases/r1.yaml": releaseFile("r1", HOSTILE, "2026-11-20T10:00:00.000Z"),
      "releases/r2.yaml": releaseFile("r2", "GRC Core", "2026-11-21T10:00:00.000Z"),
    });
    const store = new FolderStore(join(dir, "store"));
    const packages = (name: string) => [{ name, sha256: SHA }];
    await store.putRecord(releaseKey("r1"), {
      name: "r1",
      createdAt: "x",
      from: "dev",
      packages: packages(HOSTILE),
    });
    await store.putRecord(releaseKey("r3"), {
      name: "r3",
      createdAt: "2026-11-22T10:00:00.000Z",
      from: "dev",
      packages: packages("GRC Core"),
    });
    for (const env of ["prod", "test"])
      await store.putRecord(verifiedKey("r1", env), {
        name: "r1",
        environment: env,
        verifiedAt: "2026-11-20T11:00:00.000Z",
        plan: "p",
        packages: packages(HOSTILE),
      });
    // A verification of other bytes, and one filed under another environment's key, don't count.
    await store.putRecord(verifiedKey("r1", "dev"), {
      name: "r1",
      environment: "dev",
      verifiedAt: "2026-11-20T12:00:00.000Z",
      plan: "p",
      packages: [{ name: HOSTILE, sha256: "b".repeat(64) }],
    });

    const run = await egp(["release", "list", "--dir", dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain("\u001b");
    expect(lines(run.stdout)).toEqual([
      expect.stringMatching(/^release\s+created\s+from\s+packages\s+verified on$/),
      expect.stringMatching(/^r3\s+2026-11-22T10:00:00\.000Z\s+dev\s+GRC Core\s+-$/),
      expect.stringMatching(/^r2\s+2026-11-21T10:00:00\.000Z\s+dev\s+GRC Core\s+-$/),
      expect.stringMatching(/^r1\s+2026-11-20T10:00:00\.000Z\s+dev\s+GRC \\x1b\[2JCore\s+test, prod$/),
      "r3: no releases/r3.yaml in the repository",
      `r2: not in the release store ${join(dir, "store")}`,
    ]);

    const json = await egp(["release", "list", "--json", "--dir", dir]);
    const listed = lines(json.stdout).map((line) => JSON.parse(line));
    expect(listed.map((r) => r.name)).toEqual(["r3", "r2", "r1"]);
    expect(listed[2]).toEqual({
      name: "r1",
      file: "releases/r1.yaml",
      stored: true,
      createdAt: "2026-11-20T10:00:00.000Z",
      from: "dev",
      packages: packages(HOSTILE),
      verifiedOn: [
        { environment: "test", verifiedAt: "2026-11-20T11:00:00.000Z" },
        { environment: "prod", verifiedAt: "2026-11-20T11:00:00.000Z" },
      ],
      verifying: [],
      notVerified: [],
      rolledBack: [],
      problem: null,
      rejected: null,
    });
  });
});
