import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ensureStateDir, insideStateDir } from "../../src/cli/state-dir.ts";
import { egp, exampleTree } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/* `.egp/` (journals, locks, package zips, embedded data) ignores itself in a user's repository. */

const run = promisify(execFile);

/** What `git status` would offer to commit in a fresh repository at dir. */
async function untracked(dir: string): Promise<string[]> {
  await run("git", ["init", "-q", dir]);
  const status = await run("git", ["-C", dir, "status", "--porcelain", "--untracked-files=all"]);
  return status.stdout.split("\n").filter(Boolean);
}

describe("ensureStateDir", () => {
  it("creates the folder with a .gitignore of `*`, and again is a no-op", async () => {
    const state = join(await testdir({}), ".egp");
    expect(ensureStateDir(state)).toBe(state);
    const first = readFileSync(join(state, ".gitignore"), "utf8");
    expect(first.split("\n")).toContain("*");
    ensureStateDir(state);
    expect(readFileSync(join(state, ".gitignore"), "utf8")).toBe(first);
  });

  it("leaves a user's own .gitignore there as it is", async () => {
    const dir = await testdir({ ".egp/.gitignore": "journal/\n" });
    ensureStateDir(join(dir, ".egp"));
    expect(readFileSync(join(dir, ".egp", ".gitignore"), "utf8")).toBe("journal/\n");
  });

  it("knows which data files lie inside it", () => {
    expect(insideStateDir("/r/.egp", "/r/.egp/dev.json")).toBe(true);
    expect(insideStateDir("/r/.egp", "/r/.egp/sub/dev.json")).toBe(true);
    expect(insideStateDir("/r/.egp", "/r/data/dev.json")).toBe(false);
    expect(insideStateDir("/r/.egp", "/r/.egp-other/dev.json")).toBe(false);
  });
});

describe("egp in a user's git repository", () => {
  it("plan on an embedded environment with its data in .egp/ leaves nothing of .egp/ to commit", async () => {
    const dir = await testdir(exampleTree());
    expect(existsSync(join(dir, ".egp"))).toBe(false);
    expect((await egp(["plan", "--env", "local-prod"], { cwd: dir })).code).toBe(0);
    expect(existsSync(join(dir, ".egp", "local-prod.json"))).toBe(true);
    expect((await untracked(dir)).filter((line) => line.includes(".egp"))).toEqual([]);
  });

  it("apply (journal, lock, package zips) leaves nothing of .egp/ to commit", async () => {
    const dir = await testdir(exampleTree({ persist: false }));
    const applied = await egp(["apply", "--env", "local-prod", "--yes"], { cwd: dir });
    expect(applied.code).toBe(0);
    expect(existsSync(join(dir, ".egp", "journal"))).toBe(true);
    expect((await untracked(dir)).filter((line) => line.includes(".egp"))).toEqual([]);
  });
});
