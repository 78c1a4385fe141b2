import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, exampleTree } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The example promote workflow on GitHub: the plan job and the approved apply job run on two fresh
 * runners, so nothing of `.egp/` survives between them and each starts local-prod's embedded
 * emulator from its seed. The reviewed plan must still apply: a seed is the same state every time.
 */

describe("a saved plan on an embedded environment, applied on a fresh runner", () => {
  it("applies (the seed's live state is the same), and is not refused as stale", async () => {
    const planRunner = await testdir(exampleTree());
    const applyRunner = await testdir(exampleTree());
    const file = join(planRunner, "plan-local-prod.json");
    const planned = await egp(["plan", "--env", "local-prod", "--out", file, "--detailed-exitcode"], {
      cwd: planRunner,
    });
    expect(planned.code).toBe(2);
    const applied = await egp(["apply", "--env", "local-prod", file], { cwd: applyRunner });
    expect(applied.stderr).not.toContain("stale");
    expect(applied.code).toBe(0);
  });
});
