import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApplyError } from "../../src/apply/errors.ts";
import { BUILT_IN_OPS } from "../../src/apply/ops/index.ts";
import type { OpContext } from "../../src/apply/ops/types.ts";
import { type ReleaseRecord, writeRelease } from "../../src/apply/releases.ts";
import type { PlatformClient } from "../../src/index.ts";
import { sharedReads, TransientError } from "../../src/index.ts";
import { recordingSleep, useClientEmulator } from "../client/helpers/client.ts";

/*
 * A package's verify after its install reads the target's trees until they match the source. A read
 * that fails is not a difference: before, it failed the step as "these objects still differ from
 * the source:" with no object named (and a code the executor never tries again), which is how the
 * chaos run's SIGINT case failed now and then under 20% faults.
 */

function verifyContext(client: PlatformClient, guid: string): OpContext {
  return {
    step: {
      id: "Package/Controls#verify",
      change: "Package/Controls",
      op: "package.verify",
      environment: "prod",
      dependsOn: [],
      input: { objects: [{ guid, name: "Controls", fingerprint: "" }] },
    },
    planId: "plan",
    run: "plan",
    client,
    desired: {} as OpContext["desired"],
    clientOfStep: () => undefined,
    outputOf: () => undefined,
    allowDelete: false,
    resumed: false,
    stateDir: "/nonexistent",
    logger: pino({ level: "silent" }),
    progress: () => undefined,
    sleep: recordingSleep().sleep,
    shared: (_name, read) => read(),
    reads: sharedReads(),
    timeouts: { jobMs: 1_000, verifyMs: 1_000, pollMs: 1 },
  };
}

describe("package.verify", () => {
  const { emulator, client } = useClientEmulator({ seed: "demo-prod" });

  it("passes a read that keeps failing on to the executor as it is, not as a difference", async () => {
    const verify = BUILT_IN_OPS["package.verify"];
    if (!verify) throw new Error("no package.verify op");
    // The applications list is the trees' first read: what the object is does not matter here.
    const guid = "6f1d3c2a-0000-4000-8000-000000000001";
    // The first try and every retry of the client's applications read answer 503.
    emulator().faults.script({
      method: "POST",
      path: "/core/system/application",
      times: 50,
      action: { status: 503, retryAfter: 0 },
    });
    const reading = verify(verifyContext(client({ sleep: recordingSleep().sleep }), guid));
    await expect(reading).rejects.toThrow(TransientError);
    await expect(reading).rejects.not.toThrow(ApplyError);
  });

  it("fails with what still differs once the environment's verify wait is over, naming that wait", async () => {
    const verify = BUILT_IN_OPS["package.verify"];
    if (!verify) throw new Error("no package.verify op");
    // Not on the target: it differs at every read.
    const guid = "6f1d3c2a-0000-4000-8000-000000000001";
    emulator().faults.clear();
    const checking = verify(verifyContext(client(), guid));
    await expect(checking).rejects.toMatchObject({ code: "EGP_VERIFY_FAILED" });
    await expect(checking).rejects.toThrow(
      "after the install, these objects still differ from the source: Controls (not on the target) (checked for 1 s, timeouts.verify of prod)",
    );
  });
});

describe("package.rollback-verify", () => {
  const { client } = useClientEmulator({ seed: "demo-prod" });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gives up after its own bound, not the environment's hour, when the parts never read as the snapshot", async () => {
    const rollbackVerify = BUILT_IN_OPS["package.rollback-verify"];
    if (!rollbackVerify) throw new Error("no package.rollback-verify op");
    const stateDir = mkdtempSync(join(tmpdir(), "egp-rollback-verify-"));
    const record: ReleaseRecord = {
      formatVersion: 1,
      id: "0123456789ab",
      environment: "prod",
      sourceEnvironment: "dev",
      plan: "p".repeat(16),
      package: { name: "GRC Core", digest: "a".repeat(64) },
      // A snapshot whose record names an object the target does not have: it never reads so.
      snapshot: {
        digest: "b".repeat(64),
        takenAt: "2026-11-01T00:00:00.000Z",
        objects: [
          {
            guid: "6f1d3c2a-0000-4000-8000-000000000001",
            type: "Application",
            name: "Controls",
            parts: { "field:x": "f".repeat(16) },
          },
        ],
      },
      created: [],
      startedAt: "2026-11-01T00:00:00.000Z",
      installedAt: "2026-11-01T00:01:00.000Z",
      rollbacks: [],
    };
    writeRelease(stateDir, record);
    vi.useFakeTimers({ toFake: ["Date"] });
    const started = Date.now();
    const context: OpContext = {
      ...verifyContext(client(), record.snapshot?.objects[0]?.guid ?? ""),
      step: {
        id: "Package/GRC Core#rollback-verify",
        change: "Package/GRC Core",
        op: "package.rollback-verify",
        environment: "prod",
        dependsOn: [],
        input: { release: record.id },
      },
      stateDir,
      // Each pause moves the clock on instead of sleeping.
      sleep: async (ms: number) => {
        vi.setSystemTime(Date.now() + ms);
      },
      timeouts: { jobMs: 3_600_000, verifyMs: 3_600_000, pollMs: 1 },
    };
    const checking = rollbackVerify(context);
    await expect(checking).rejects.toMatchObject({ code: "EGP_VERIFY_FAILED" });
    await expect(checking).rejects.toThrow("(checked for 300 s, the rollback check's bound)");
    expect(Date.now() - started).toBeLessThanOrEqual(300_000 + 1_000);
  });
});
