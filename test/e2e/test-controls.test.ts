import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { egp, exampleTree, lines, ROOT } from "../helpers/cli.ts";
import { FIXED_CLOCK_VARIABLE } from "../helpers/fixed-clock.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * What the end-to-end tests control from outside egp, since the CLI has no switch for tests: the
 * child's clock (test/helpers/fixed-clock.ts, loaded with `node --import` by `egp(args, { now })`)
 * and the embedded emulator's faults (`faults=` in an environment's url, docs/emulator.md).
 */

const PROD = "environments/local-prod.yaml";
const FIXED_CLOCK = join(ROOT, "test/helpers/fixed-clock.ts");
const run = promisify(execFile);

/** The example, with local-prod frozen for one day of 2031, a window the machine's clock is far from. */
function frozenIn2031(): Promise<string> {
  const tree = exampleTree({ persist: false });
  tree[PROD] =
    `${tree[PROD]}\nfreeze:\n` +
    "  - { from: 2031-01-10T00:00:00Z, to: 2031-01-11T00:00:00Z, reason: year-end close }\n";
  return testdir(tree);
}

const apply = (dir: string, now: string) =>
  egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: { EGP_ACTOR: "bob" }, now });

describe("the child's clock, fixed by the preload", () => {
  it("puts an apply inside a freeze window or after it, and the audit record at that instant", async () => {
    const dir = await frozenIn2031();
    const refused = await apply(dir, "2031-01-10T12:00:00Z");
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/EGP_FROZEN local-prod is frozen until \S+ \S+ UTC: year-end close/);
    const audit = await egp(["audit", "--dir", dir], { now: "2031-01-10T12:05:00Z" });
    expect(audit.stdout).toMatch(/^#1 2031-01-10T12:00:\d\d(\.\d+)?Z bob apply local-prod: /m);

    const applied = await apply(dir, "2031-01-11T00:00:01Z");
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Verified: local-prod matches the manifests.");
  });

  it("runs on from the instant at the real pace, so that waits still end", async () => {
    const script =
      "const first = Date.now(); setTimeout(() => console.log(JSON.stringify([new Date(first).toISOString(), Date.now() - first, Date() === new Date().toString()])), 100)";
    const child = await run(process.execPath, ["--import", FIXED_CLOCK, "-e", script], {
      env: { PATH: process.env.PATH ?? "", [FIXED_CLOCK_VARIABLE]: "2031-03-30T00:59:59Z" },
    });
    const [first, elapsed, asString] = JSON.parse(child.stdout) as [string, number, boolean];
    expect(first).toMatch(/^2031-03-30T00:59:59\.0\d\dZ$/);
    expect(elapsed).toBeGreaterThanOrEqual(90);
    expect(elapsed).toBeLessThan(5_000);
    expect(asString).toBe(true);
  });

  it("refuses an instant that is not one, before egp runs", async () => {
    const run = await egp(["validate"], { now: "Tuesday" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('EGP_TEST_FIXED_NOW: not an instant: "Tuesday"');
  });
});

describe("the embedded emulator's faults, from the environment's url", () => {
  it("are read by the emulator's fault parser: a bad spec is one line naming the file", async () => {
    const tree = exampleTree({ persist: false });
    tree[PROD] = (tree[PROD] ?? "").replace(
      /^url: embedded:demo-prod$/m,
      "url: embedded:demo-prod?faults=nap=1",
    );
    const dir = await testdir(tree);
    expect(tree[PROD]).toContain("faults=nap=1");
    const plan = await egp(["plan", "--env", "local-prod", "--dir", dir]);
    expect(plan.code).toBe(1);
    expect(lines(plan.stderr)).toEqual([
      'egp: EGP_MANIFEST_INVALID environments/local-prod.yaml: url: faults=: unknown key "nap"',
    ]);
  });
});
