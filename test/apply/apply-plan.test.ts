// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${P} here is environment-file text, not a template.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPlan } from "../../src/apply/index.ts";
import { TransientError } from "../../src/client/errors.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import {
  ApplyRefusedError,
  httpConnections,
  type Plan,
  type PlanOptions,
  planEnvironment,
} from "../../src/index.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The library's plan (src/index.ts) and the apply's orchestration under the governed entry point
 * (src/apply/apply-plan.ts), in-process against the emulator over HTTP. demo-prod's General User Parameter has no minimum length of 14.
 */

const PASSWORD = "Compose#Test2026";
let prod: Emulator;
let dir: string;
let stateDir: string;
const connections = httpConnections();
const replan = (options: PlanOptions) =>
  planEnvironment({ dir, env: "prod", options, open: connections.open });

beforeAll(async () => {
  process.env.EGP_COMPOSE_TEST_P = PASSWORD;
  prod = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  dir = await testdir({
    "environments/prod.yaml": `url: ${prod.url}\ninstance: Default\nauth: { username: sysadmin, password: '\${EGP_COMPOSE_TEST_P}' }\n`,
    "manifests/parameters.yaml":
      "kind: SecurityParameter\nname: General User Parameter\nminPasswordLength: 14\n",
  });
  stateDir = await mkdtemp(join(tmpdir(), "egp-compose-state-"));
});

afterAll(async () => {
  await connections.close();
  await prod?.close();
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

describe("planEnvironment and applyPlan, from the library", () => {
  it("refuses --resume with nothing pending, and a saved plan made for another environment", async () => {
    await expect(
      applyPlan({ env: "prod", stateDir, replan, open: connections.open, resume: true }),
    ).rejects.toThrow(ApplyRefusedError);
    await expect(
      applyPlan({ env: "prod", stateDir, replan, open: connections.open, resume: true }),
    ).rejects.toThrow("--resume: no interrupted apply is pending for prod");
    const { plan } = await replan({});
    const saved: Plan = { ...plan, environment: "dev" };
    await expect(
      applyPlan({ env: "prod", stateDir, replan, open: connections.open, saved, savedFile: "dev.plan.json" }),
    ).rejects.toThrow("dev.plan.json is a plan for dev, not prod");
  });

  it("says that there is nothing to discard", async () => {
    const said: string[] = [];
    const outcome = await applyPlan({
      env: "prod",
      stateDir,
      replan,
      open: connections.open,
      discard: true,
      report: { say: (line) => said.push(line) },
    });
    expect(outcome).toEqual({ result: "discarded", unreadable: [] });
    expect(said).toEqual(["No interrupted apply is pending for prod; nothing to discard."]);
  });

  it("reads the plan again after a passing failure, and applies until a fresh plan shows no changes", async () => {
    const said: string[] = [];
    let calls = 0;
    const flaky = (options: PlanOptions) => {
      calls += 1;
      if (calls === 1)
        return Promise.reject(new TransientError({ code: "EGP_UNAVAILABLE", message: "503 from the proxy" }));
      return replan(options);
    };
    const asked: string[] = [];
    const outcome = await applyPlan({
      env: "prod",
      stateDir,
      replan: flaky,
      open: connections.open,
      confirm: async (plan) => {
        asked.push(plan.id);
        return true;
      },
      planDelay: async () => undefined,
      report: { say: (line) => said.push(line) },
    });
    expect(said).toEqual([
      "Reading the live state failed (503 from the proxy); reading it again (try 2 of 5).",
    ]);
    expect(outcome.result).toBe("complete");
    expect(outcome.result === "complete" && outcome.converged).toBe(true);
    expect(outcome.result === "complete" && outcome.plan.changes.map((change) => change.id)).toEqual([
      "SecurityParameter/General User Parameter",
    ]);
    expect(asked).toHaveLength(1);
    // Planned, applied, verified: the failed read, the plan, the check.
    expect(calls).toBe(3);

    const again = await applyPlan({ env: "prod", stateDir, replan, open: connections.open });
    expect(again.result).toBe("no-changes");
  });

  it("asks, and a 'no' changes nothing", async () => {
    dir = await testdir({
      "environments/prod.yaml": `url: ${prod.url}\ninstance: Default\nauth: { username: sysadmin, password: '\${EGP_COMPOSE_TEST_P}' }\n`,
      "manifests/parameters.yaml":
        "kind: SecurityParameter\nname: General User Parameter\nminPasswordLength: 15\n",
    });
    const outcome = await applyPlan({
      env: "prod",
      stateDir,
      replan,
      open: connections.open,
      confirm: async () => false,
    });
    expect(outcome.result).toBe("cancelled");
    expect((await replan({})).plan.changes).toHaveLength(1);
  });
});
