import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, exampleTree } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/* The manifest cache as `egp plan` uses it: written by a first plan, read by the next, off with EGP_CACHE=off. */

const manifestFiles = (tree: Record<string, string>) =>
  Object.keys(tree).filter((path) => path.startsWith("manifests/"));

describe("egp plan and the manifest cache", () => {
  it("a plan writes one entry per manifest file, and the next plan, from the cache, prints the same plan", async () => {
    const tree = exampleTree({ persist: false });
    const dir = await testdir(tree);
    const first = await egp(["plan", "--env", "local-prod", "--format", "json"], { cwd: dir });
    expect(first.code).toBe(0);
    const folder = join(dir, ".egp", "cache", "manifests");
    expect(readdirSync(folder).filter((name) => name.endsWith(".bin"))).toHaveLength(
      manifestFiles(tree).length,
    );
    // And one entry for the environment's whole state, which the next plan reads instead.
    const states = join(dir, ".egp", "cache", "states");
    expect(readdirSync(states).filter((name) => name.endsWith(".bin"))).toHaveLength(1);
    const second = await egp(["plan", "--env", "local-prod", "--format", "json"], { cwd: dir });
    expect(second.code).toBe(0);
    const changes = (run: { stdout: string }) => JSON.parse(run.stdout).changes;
    expect(changes(second)).toEqual(changes(first));
    expect(changes(first).length).toBeGreaterThan(0);
  });

  it("a plan from the environment's cached state still sees a changed manifest", async () => {
    const dir = await testdir(exampleTree({ persist: false }));
    const plan = () => egp(["plan", "--env", "local-prod", "--format", "json"], { cwd: dir });
    expect((await plan()).code).toBe(0);
    const users = join(dir, "manifests", "users.yaml");
    const text = readFileSync(users, "utf8");
    const title = /title: (.+)/.exec(text)?.[1];
    expect(title).toBeDefined();
    writeFileSync(users, text.replace(`title: ${title}`, "title: Chief Tester"));
    const after = await plan();
    expect(after.code).toBe(0);
    expect(after.stdout).toContain("Chief Tester");
  });

  it("EGP_CACHE=off writes none", async () => {
    const dir = await testdir(exampleTree({ persist: false }));
    const run = await egp(["plan", "--env", "local-prod"], { cwd: dir, env: { EGP_CACHE: "off" } });
    expect(run.code).toBe(0);
    expect(existsSync(join(dir, ".egp", "cache"))).toBe(false);
  });
});
