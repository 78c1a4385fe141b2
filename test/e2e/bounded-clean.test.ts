import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sealedLine } from "../../src/apply/journal.ts";
import { localKey } from "../../src/io/local-key.ts";
import { egp, lines, ROOT } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * What egp leaves on disk is bounded and private, and what it says about it is one clear line:
 * package downloads stop at limits.packageBytes and keep nothing, `.egp/` is 0600 in 0700, a full
 * disk during `release create` is one line, and a plan beside a running apply says it runs.
 */

const KEYED = { EGP_STATE_KEY: "a-test-key-of-at-least-32-characters" };

async function releaseRepository(environment: string): Promise<string> {
  return testdir({
    "environments/dev.yaml": environment,
    "manifests/packages.yaml": readFileSync(join(ROOT, "manifests", "packages.yaml"), "utf8"),
  });
}

/** Every folder and file under `folder`, with its mode. */
function modes(folder: string): Array<{ path: string; mode: number; folder: boolean }> {
  return readdirSync(folder, { recursive: true, encoding: "utf8" }).map((path) => {
    const stat = statSync(join(folder, path));
    return { path, mode: stat.mode & 0o777, folder: stat.isDirectory() };
  });
}

describe("package downloads", () => {
  it("stop at limits.packageBytes: release create fails in one line and leaves nothing in .egp/artifacts", async () => {
    const dir = await releaseRepository("url: embedded:demo-dev\nlimits: { packageBytes: 100 }\n");
    const run = await egp(["release", "create", "--from", "dev", "--name", "r1", "--dir", dir], {
      env: KEYED,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain("    at ");
    expect(lines(run.stderr).slice(1)).toEqual([
      expect.stringMatching(
        /^egp: EGP_PACKAGE_TOO_LARGE GET \S+: package \d+ is larger than limits\.packageBytes \(100 bytes; \d+ bytes announced\); stopped, and kept nothing$/,
      ),
    ]);
    expect(readdirSync(join(dir, ".egp", "artifacts"))).toEqual([]);
  });
});

describe("a release whose stored file is corrupt, with no copy kept on this machine", () => {
  it("writes nothing: users wait for the fetch, which fails, and stay unwritten", async () => {
    const dir = await releaseRepository("url: embedded:demo-dev\n");
    const run = (...args: string[]) => egp([...args, "--dir", dir], { env: KEYED });
    expect((await run("release", "create", "--from", "dev", "--name", "r1")).code).toBe(0);
    writeFileSync(
      join(dir, "environments", "test.yaml"),
      "url: embedded:demo-prod?data=.egp/test.json\nrelease: r1\n",
    );
    writeFileSync(
      join(dir, "manifests", "users.yaml"),
      "kind: User\nuserName: newbie\nfirstName: New\nlastName: Bie\nenvironments: [test]\n",
    );
    const blobs = join(dir, ".egp", "store", "blobs", "sha256");
    for (const blob of readdirSync(blobs)) writeFileSync(join(blobs, blob), "not the package");
    rmSync(join(dir, ".egp", "artifacts"), { recursive: true });
    const applied = await run("apply", "--env", "test", "--yes");
    expect(applied.code).toBe(1);
    expect(applied.stdout).toContain("Package/GRC Core#fetch (test): FAILED: EGP_RELEASE_UNUSABLE");
    expect(applied.stdout).toContain("User/newbie#create (test): skipped");
    expect((await run("plan", "--env", "test")).stdout).toContain('User "newbie" will be created');
  });
});

describe("what egp writes under .egp/", () => {
  it("is 0600 in 0700 folders: the default store and the artifact cache", async () => {
    const dir = await releaseRepository("url: embedded:demo-dev\n");
    const run = await egp(["release", "create", "--from", "dev", "--name", "r1", "--dir", dir], {
      env: KEYED,
    });
    expect(run.code).toBe(0);
    const written = modes(join(dir, ".egp"));
    expect(written.map((entry) => entry.path)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^store\/blobs\/sha256\//),
        expect.stringMatching(/^artifacts\//),
      ]),
    );
    const loose = written.filter((entry) => entry.mode !== (entry.folder ? 0o700 : 0o600));
    expect(loose).toEqual([]);
  });
});

const mounted: string[] = [];
afterAll(() => {
  for (const point of mounted) execFileSync("umount", [point]);
});

describe.runIf(process.getuid?.() === 0)("a full disk under .egp/", () => {
  it("release create says so in one line, with no stack", async (context) => {
    const dir = await releaseRepository("url: embedded:demo-dev\n");
    const point = join(dir, ".egp");
    mkdirSync(point);
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", point], { stdio: "ignore" });
    } catch {
      return context.skip();
    }
    mounted.push(point);
    expect(() => writeFileSync(join(point, "filler"), Buffer.alloc(1024 * 1024))).toThrow("ENOSPC");
    const run = await egp(["release", "create", "--from", "dev", "--name", "r1", "--dir", dir], {
      env: KEYED,
    });
    expect(run.code).toBe(1);
    // The progress line, then the failure in one line.
    expect(run.stderr).not.toContain("    at ");
    expect(lines(run.stderr).slice(1)).toEqual([
      expect.stringMatching(
        /^egp: EGP_FILE_SYSTEM cannot write( \S+)?: no space left on the device \(ENOSPC\)$/,
      ),
    ]);
  });
});

describe("plan beside an apply that is running", () => {
  it("says the apply is running, not that it was interrupted", async () => {
    const dir = await testdir({
      "environments/dev.yaml": "url: embedded:empty\n",
      "manifests/p.yaml": "kind: SecurityParameter\nname: Test Parameter\nminPasswordLength: 12\n",
    });
    const out = join(dir, "plan.json");
    expect((await egp(["plan", "--env", "dev", "--out", out, "--dir", dir], { env: KEYED })).code).toBe(0);
    const plan = JSON.parse(readFileSync(out, "utf8")) as { id: string };
    // This process holds dev's lock, as a running apply does, and its journal has one line.
    mkdirSync(join(dir, ".egp", "journal", "dev"), { recursive: true, mode: 0o700 });
    mkdirSync(join(dir, ".egp", "locks"), { mode: 0o700 });
    const entry = { type: "plan", at: new Date().toISOString(), plan };
    writeFileSync(
      join(dir, ".egp", "journal", "dev", `${plan.id}.jsonl`),
      `${sealedLine(entry, plan.id, localKey(KEYED))}\n`,
      {
        mode: 0o600,
      },
    );
    const holder = {
      pid: process.pid,
      host: hostname(),
      startedAt: new Date().toISOString(),
      command: "egp apply --env dev",
    };
    writeFileSync(join(dir, ".egp", "locks", "dev.lock"), JSON.stringify(holder), { mode: 0o600 });
    const run = await egp(["plan", "--env", "dev", "--dir", dir], { env: KEYED });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `An apply is running for dev: plan ${plan.id}, 0 of 1 steps done so far (pid ${process.pid}`,
    );
    expect(run.stderr).not.toContain("interrupted");
  });
});
