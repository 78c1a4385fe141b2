import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredPackage,
  environment,
  live,
  packageObject,
} from "../../test/builders/plan.ts";
import type { PlatformClient } from "../client/client.ts";
import { planChanges } from "../plan/index.ts";
import { executePlan } from "./executor.ts";
import { Journal } from "./journal.ts";
import type { OpContext, OpRegistry } from "./ops/types.ts";

/** A promotion from dev to prod whose steps only record the waits they are given. */
async function waitsOfSteps(timeouts?: Partial<OpContext["timeouts"]>) {
  const dir = mkdtempSync(join(tmpdir(), "egp-waits-"));
  const prod = environment("prod", { packagesFrom: "dev", waits: { jobMs: 7_200_000, verifyMs: 1_800_000 } });
  const dev = environment("dev", { waits: { jobMs: 600_000, verifyMs: 60_000 } });
  const state = desired({
    environment: prod,
    packagesFrom: dev,
    packages: [desiredPackage("R", ["Risk Register"])],
  });
  const source = {
    environment: "dev",
    applicationsByName: { "risk register": "g-1" },
    objects: { "g-1": packageObject("g-1", "Risk Register", "fp-1", { a: "1" }) },
  };
  const plan = planChanges(state, live({ packageSource: source }), { createdAt: CREATED_AT });
  const seen = new Map<string, OpContext["timeouts"]>();
  const ops = new Proxy({} as OpRegistry, {
    get: () => async (context: OpContext) => {
      seen.set(context.step.id, context.timeouts);
      return { packageId: 1 };
    },
  });
  const client = {} as PlatformClient;
  await executePlan({
    plan,
    desired: state,
    clients: new Map([
      ["prod", client],
      ["dev", client],
    ]),
    journal: Journal.open(dir, plan),
    stateDir: dir,
    concurrency: 1,
    logger: pino({ level: "silent" }),
    ops,
    ...(timeouts ? { timeouts } : {}),
  });
  return seen;
}

describe("executePlan: how long a step waits for a job", () => {
  it("as the environment file of the instance the step talks to says", async () => {
    const seen = await waitsOfSteps();
    expect(seen.get("Package/R#generate")).toEqual({ jobMs: 600_000, verifyMs: 60_000, pollMs: 250 });
    expect(seen.get("Package/R#install")).toEqual({ jobMs: 7_200_000, verifyMs: 1_800_000, pollMs: 250 });
    expect(seen.get("Package/R#verify")).toEqual({ jobMs: 7_200_000, verifyMs: 1_800_000, pollMs: 250 });
  });

  it("as the caller says, when it says", async () => {
    const seen = await waitsOfSteps({ jobMs: 1_000, pollMs: 1 });
    expect(seen.get("Package/R#generate")).toEqual({ jobMs: 1_000, verifyMs: 60_000, pollMs: 1 });
    expect(seen.get("Package/R#install")).toEqual({ jobMs: 1_000, verifyMs: 1_800_000, pollMs: 1 });
  });
});
