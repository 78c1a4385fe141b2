// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is environment-file text, not a template.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Connections, connections } from "../../src/cli/connect.ts";
import { manifestCacheOf } from "../../src/cli/manifest-cache.ts";
import { clientsOf, planWith } from "../../src/cli/plan-environment.ts";
import { httpConnections } from "../../src/compose/connections.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { loadEnvironment } from "../../src/manifest/index.ts";
import { apply } from "../../src/release/apply.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * An apply reads what it needs once: its plans (the plan it applies and the final check) read the
 * package source once, since the apply writes to its own environment only; the snapshot before an
 * install takes the target's trees from the plan, and the final check takes them from the install's
 * verify. Each tree of the target is read at most twice (plan, verify), and an apply sends at most
 * twice the requests of its plan. The CLI's wiring, against emulators over HTTP, counted by path.
 */

const PASSWORD = "ApplyReads#Test2026";
const TREE = "POST /core/system/fielddefinition/level/{}";
/** The reads that make up the catalogue and the metadata trees, by the start of their paths. */
const TREE_PATHS = [
  "/core/system/application",
  "/core/system/level",
  "/core/system/fielddefinition/level/",
  "/core/system/levellayout/level/",
  "/core/system/eventrule/level/",
  "/core/system/eventaction/eventrule/",
];
let dev: Emulator;
let prod: Emulator;
let older: Emulator;
let fresh: Emulator;
let dir: string;

const environment = (url: string, extra = "") =>
  `url: ${url}\ninstance: Default\nauth: { username: sysadmin, password: '\${EGP_APPLY_READS_P}' }\nlimits: { requestsPerSecond: 0 }\n${extra}`;

beforeAll(async () => {
  process.env.EGP_APPLY_READS_P = PASSWORD;
  // Jobs end at once, so that the number of polls of a job does not depend on the machine's load.
  const jobs = { generateMs: 0, installMs: 0 };
  const start = (seed: string) => startEmulator({ port: 0, seed, adminPassword: PASSWORD, jobs });
  [dev, prod, older, fresh] = await Promise.all([
    start("demo-dev"),
    start("demo-prod"),
    start("demo-prod"),
    start("empty"),
  ]);
  dir = await testdir({
    "environments/dev.yaml": environment(dev.url),
    "environments/prod.yaml": environment(prod.url, "packagesFrom: dev\n"),
    "environments/older.yaml": environment(older.url, "packagesFrom: dev\n"),
    "environments/fresh.yaml": environment(fresh.url, "packagesFrom: dev\n"),
    "manifests/package.yaml":
      "kind: Package\nname: GRC Core\nincludeDependencies: true\nobjects:\n  - application: Risk Register\n  - application: Controls\n  - application: Findings\n",
  });
});

afterAll(async () => {
  await Promise.all([dev?.close(), prod?.close(), older?.close(), fresh?.close()]);
});

async function withStateDir<T>(body: (stateDir: string) => Promise<T>): Promise<T> {
  const stateDir = await mkdtemp(join(tmpdir(), "egp-apply-reads-"));
  try {
    return await body(stateDir);
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
}

/** dev's requests by route, made by `body` with one run's connections. */
async function devRoutes(body: (context: Parameters<typeof planWith>[0]) => Promise<unknown>) {
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

/** The requests of `body`, by environment and `METHOD path`, with one run's connections. */
async function countedPaths(body: (context: Parameters<typeof planWith>[0]) => Promise<unknown>) {
  const counted: Record<string, Record<string, number>> = {};
  const byName = new Map<string, ReturnType<typeof httpConnections>>();
  const run: Connections = {
    async open(config) {
      let http = byName.get(config.name);
      if (!http) {
        const paths: Record<string, number> = {};
        counted[config.name] = paths;
        const key = (info: { method: string; path: string }) => `${info.method} ${info.path}`;
        http = httpConnections({ onRequest: (info) => (paths[key(info)] = (paths[key(info)] ?? 0) + 1) });
        byName.set(config.name, http);
      }
      return { name: config.name, client: await http.open(config) };
    },
    closeSoon() {},
    async closeAll() {
      await Promise.all([...byName.values()].map((http) => http.close()));
    },
  };
  try {
    await body({ dir, connections: run, logger: pino({ level: "silent" }) });
  } finally {
    await run.closeAll();
  }
  return counted;
}

const total = (paths: Record<string, number> = {}) => Object.values(paths).reduce((a, b) => a + b, 0);
/** The catalogue's and the trees' reads of one instance, by path. */
const treeReads = (paths: Record<string, number> = {}) =>
  Object.fromEntries(
    Object.entries(paths).filter(([key]) =>
      TREE_PATHS.some((read) => {
        // The paths carry the instance's base (`/platformapi`) before the interface's own.
        const path = key.slice(key.indexOf("/core/"));
        return read.endsWith("/") ? path.startsWith(read) : path === read;
      }),
    ),
  );
const most = (paths: Record<string, number>) => Math.max(...Object.values(paths));

/** The plan of `env` alone, then its apply, each with a run's connections of its own. */
async function planThenApply(env: string) {
  const planned = await countedPaths((context) => planWith(context, env, {}));
  let outcome: Awaited<ReturnType<typeof apply>> | undefined;
  const applied = await withStateDir((stateDir) =>
    countedPaths(async (context) => {
      outcome = await apply({
        dir,
        env,
        stateDir,
        cache: manifestCacheOf(dir),
        open: clientsOf(context.connections),
      });
    }),
  );
  return { planned, applied, outcome };
}

describe("an apply's reads of its package source", () => {
  it("are made once for the plan and the final check, and the check still sees the promotion", async () => {
    const planned = await devRoutes((context) => planWith(context, "prod", {}));
    expect(planned[TREE]).toBeGreaterThan(0);
    let converged: boolean | undefined;
    const applied = await devRoutes((context) =>
      withStateDir(async (stateDir) => {
        const outcome = await apply({
          dir,
          env: "prod",
          stateDir,
          cache: manifestCacheOf(dir),
          open: clientsOf(context.connections),
        });
        expect(outcome.result).toBe("complete");
        if (outcome.result !== "complete") return;
        expect(outcome.plan.summary.promote).toBeGreaterThan(0);
        converged = outcome.converged;
      }),
    );
    expect(converged).toBe(true);
    expect(applied[TREE]).toBe(planned[TREE]);
    expect(applied["POST /core/system/application"]).toBe(planned["POST /core/system/application"]);
  });
});

describe("an apply of a promotion", () => {
  it.each([
    ["onto older versions of its applications, snapshot first", "older"],
    ["onto an instance without its applications", "fresh"],
  ])(
    "%s: reads each target tree at most three times, the source's once, and at most twice its plan's requests plus one read of each target tree",
    async (_label, env) => {
      const { planned, applied, outcome } = await planThenApply(env);
      expect(outcome?.result).toBe("complete");
      if (outcome?.result !== "complete") return;
      expect(outcome.plan.summary.promote).toBeGreaterThan(0);
      expect(outcome.converged).toBe(true);
      if (env === "older")
        expect(outcome.plan.steps.some((step) => step.op === "package.snapshot-download")).toBe(true);

      const target = treeReads(applied[env]);
      const source = treeReads(applied.dev);
      expect(Object.keys(target).length).toBeGreaterThan(2);
      expect(Object.keys(source).sort()).toEqual(Object.keys(treeReads(planned.dev)).sort());
      // The plan's read, then the verify's two stable reads, the second of which the final check takes.
      expect(most(target), JSON.stringify(target)).toBeLessThanOrEqual(3);
      expect(most(source), JSON.stringify(source)).toBe(1);
      const plan = total(planned.dev) + total(planned[env]);
      const apply = total(applied.dev) + total(applied[env]);
      // The verify's stable reads spend one read of each installed tree more than a single match did.
      const oneMoreRead = Object.keys(target).length;
      expect(apply, JSON.stringify({ applied, planned })).toBeLessThanOrEqual(2 * plan + oneMoreRead);
    },
  );
});
