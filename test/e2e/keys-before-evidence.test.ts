import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, exampleTree, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A shared store (any folder but the default .egp/store) is written with a configured key only:
 * every command that would write a record to it without EGP_SIGNING_KEY stops before it writes.
 */

const REQUIRED = /^egp: EGP_SIGNING_KEY_REQUIRED the release store \S+ is shared, .*make one with 'egp keys'/;

describe("keys before evidence", () => {
  it.each([
    ["release reject", ["release", "reject", "r1", "--reason", "breaks single sign-on"]],
    ["rollback", ["rollback", "--env", "local-prod", "--yes"]],
    ["apply", ["apply", "--env", "local-prod", "--yes"]],
  ])(
    "%s to a shared folder without EGP_SIGNING_KEY is refused, and nothing is written",
    async (_what, args) => {
      const dir = await testdir({ ...exampleTree(), "egp.yaml": "releases:\n  store: ./shared-store\n" });
      const refused = await egp([...args, "--dir", dir]);
      expect(refused.code).toBe(1);
      expect(lines(refused.stderr)).toEqual([expect.stringMatching(REQUIRED)]);
      await expect(readdir(join(dir, "shared-store"))).rejects.toThrow(/ENOENT/);
    },
    60_000,
  );

  it("the default .egp/store needs no key", async () => {
    const dir = await testdir(exampleTree());
    const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir]);
    expect(applied.code, applied.stderr).toBe(0);
    // Its apply-started record and its result.
    expect(await readdir(join(dir, ".egp/store/records/audit"))).toHaveLength(2);
  }, 60_000);
});
