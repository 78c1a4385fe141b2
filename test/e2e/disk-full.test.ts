import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { egp, exampleTree, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A full disk under `.egp/`: ENOSPC is a clear one-line error, not "internal error", and leaves no
 * 0-byte lock that would block the next run. A real full filesystem needs a tiny tmpfs, which
 * only root can mount; elsewhere this file is skipped, and test/emulator/durable.test.ts covers a
 * refused commit by injection.
 */

const mounted: string[] = [];
afterAll(() => {
  for (const point of mounted) execFileSync("umount", [point]);
});

/** Mounts a 64 KiB tmpfs at `point` and fills it; false when this machine does not let us. */
function fullDisk(point: string): boolean {
  mkdirSync(point, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", point], { stdio: "ignore" });
  } catch {
    return false;
  }
  mounted.push(point);
  mkdirSync(join(point, "locks"));
  expect(() => writeFileSync(join(point, "filler"), Buffer.alloc(1024 * 1024))).toThrow("ENOSPC");
  return true;
}

const root = process.getuid?.() === 0;

describe.runIf(root)("a full disk under .egp/", () => {
  it("apply says so in one line, exits 1 and leaves no lock file", async (context) => {
    const dir = await testdir(exampleTree());
    if (!fullDisk(join(dir, ".egp"))) return context.skip();
    const run = await egp(["apply", "--env", "local-dev", "--yes", "--dir", dir]);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^egp: EGP_FILE_SYSTEM cannot write( \S+)?: no space left on the device \(ENOSPC\)\n$/,
    );
    expect(run.stderr).not.toContain("internal error");
    expect(readdirSync(join(dir, ".egp", "locks"))).toEqual([]);
  });

  it("the emulator refuses to start on a data file it cannot write, in one line", async (context) => {
    const dir = await testdir({});
    if (!fullDisk(join(dir, "data"))) return context.skip();
    const run = await egp(["emulator", "--port", "0", "--data", join(dir, "data", "state.json")]);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      expect.stringMatching(/^egp: EGP_EMULATOR_FAILED emulator: ENOSPC: no space left on device/),
    ]);
    expect(readdirSync(join(dir, "data")).filter((name) => name !== "filler" && name !== "locks")).toEqual(
      [],
    );
  });
});
