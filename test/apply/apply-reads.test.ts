// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is environment-file text, not a template.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPlan } from "../../src/apply/index.ts";
import { connections } from "../../src/cli/connect.ts";
import { applyReplan, clientsOf } from "../../src/cli/plan-environment.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { loadEnvironment } from "../../src/manifest/index.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * An apply's plans (the plan it applies and the final check) read the package source once: the
 * apply writes to its own environment only, so the source's trees read for the plan are those the
 * check compares with. The CLI's wiring, against emulators over HTTP, counted by route.
 */

const PASSWORD = "ApplyReads#Test2026";
const TREE = "POST /core/system/fielddefinition/level/{}";
let dev: Emulator;
let prod: Emulator;
let dir: string;
let stateDir: string;

const environment = (url: string, extra = "") =>
  `url: ${url}\ninstance: Default\nauth: { username: sysadmin, password: '\${EGP_APPLY_READS_P}' }\nlimits: { requestsPerSecond: 0 }\n${extra}`;

beforeAll(async () => {
  process.env.EGP_APPLY_READS_P = PASSWORD;
  [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", adminPassword: PASSWORD }),
    startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD }),
  ]);
  dir = await testdir({
    "environments/dev.yaml": environment(dev.url),
    "environments/prod.yaml": environment(prod.url, "packagesFrom: dev\n"),
    "manifests/package.yaml": "kind: Package\nname: GRC Core\nobjects:\n  - application: Risk Register\n",
  });
  stateDir = await mkdtemp(join(tmpdir(), "egp-apply-reads-"));
});

afterAll(async () => {
  await Promise.all([dev?.close(), prod?.close()]);
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

/** dev's requests by route, made by `body` with one run's connections. */
async function devRoutes(body: (context: Parameters<typeof applyReplan>[0]) => Promise<unknown>) {
  const logger = pino({ level: "silent" });
  const open = connections({ logger });
  try {
    await body({ dir, connections: open, logger });
    const { state } = await loadEnvironment(dir, "dev", { variables: { EGP_APPLY_READS_P: PASSWORD } });
    return (await open.open(state.environment)).client.stats().byRoute;
  } finally {
    await open.closeAll();
  }
}

describe("an apply's reads of its package source", () => {
  it("are made once for the plan and the final check, and the check still sees the promotion", async () => {
    const planned = await devRoutes((context) => applyReplan(context, "prod")({}));
    expect(planned[TREE]).toBeGreaterThan(0);
    let converged: boolean | undefined;
    const applied = await devRoutes(async (context) => {
      const outcome = await applyPlan({
        env: "prod",
        stateDir,
        replan: applyReplan(context, "prod"),
        open: clientsOf(context.connections),
      });
      expect(outcome.result).toBe("complete");
      if (outcome.result !== "complete") return;
      expect(outcome.plan.summary.promote).toBeGreaterThan(0);
      converged = outcome.converged;
    });
    expect(converged).toBe(true);
    expect(applied[TREE]).toBe(planned[TREE]);
    expect(applied["POST /core/system/application"]).toBe(planned["POST /core/system/application"]);
  });
});
