import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BENCH_PASSWORD_VARIABLE, writeRepo } from "../../bench/lib/repo.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { egp } from "../helpers/cli.ts";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe("egp apply: a live-state read that outlasts the client's retries", () => {
  it("reads the live state again, as a failed step is tried again, and converges", async () => {
    emulator = await startEmulator({ port: 0 });
    // One try and the client's four retries of the parameters read all fail: the plan fails once.
    emulator.faults.script({
      method: "POST",
      path: "/core/system/securityparameter",
      times: 5,
      action: { status: 503, retryAfter: 0 },
    });
    const dir = mkdtempSync(join(tmpdir(), "egp-plan-retry-"));
    writeRepo(dir, {
      environments: { target: { url: emulator.url, concurrency: 2 } },
      users: 2,
      parameters: 1,
    });

    const applied = await egp(["apply", "--env", "target", "--yes", "--dir", dir], {
      env: { [BENCH_PASSWORD_VARIABLE]: "Password1!" },
    });

    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(
      /Reading the live state failed \(.*503.*\); reading it again \(try 2 of 5\)\./,
    );
    expect(applied.stdout).toContain("Verified: target matches the manifests.");
    expect(emulator.faults.stats.byKind["503"]).toBe(5);
    expect(
      emulator.store.allSecurityParameters().filter((p) => p.Name === "Bench Parameter 001"),
    ).toHaveLength(1);
  }, 60_000);
});
