import { readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { publishInstall } from "../../src/apply/history.ts";
import { Journal } from "../../src/apply/index.ts";
import { readPlanFile } from "../../src/plan/index.ts";
import { FolderStore } from "../../src/store/index.ts";
import { Keyring, SignedStore } from "../../src/store/signing.ts";

/** The default store as egp writes it: records signed with this user's local key. */
shareChildrenKey();
const signed = (folder: string) => new SignedStore(new FolderStore(folder), new Keyring());

import { egp, environmentFile, lines, shareChildrenKey } from "../helpers/cli.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `egp status` over HTTP against two emulators this test runs (dev matches the manifests, prod was
 * changed behind egp's back) and a third environment whose port is closed.
 */

const PASSWORD = "Status#Test2026";
const env = { EGP_TEST_PASSWORD: PASSWORD };
const dev = useEmulator({ seed: "demo-prod", adminPassword: PASSWORD });
const prod = useEmulator({ seed: "demo-prod", adminPassword: PASSWORD });

const MAPS = [
  "roles: { System Administrator: 1, General User: 2, Auditor: 3, Risk Manager: 4 }",
  "groups: { Everyone: 1, Administrators: 2, Auditors: 3, Risk Owners: 4 }",
];

/** A port nothing listens on: one the system just gave out and was closed again. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function setTitle(userName: string, title: string): Promise<void> {
  const raw = prod.raw();
  const token = await raw.token("sysadmin", PASSWORD);
  const users = await raw.read("/core/system/user", token);
  const user = (users.body as Json[]).map((e) => e.RequestedObject).find((u) => u.UserName === userName);
  const put = await raw.call("/core/system/user", {
    method: "PUT",
    token,
    body: { User: { ...user, Title: title } },
  });
  expect(put.body).toMatchObject({ IsSuccessful: true });
}

describe("egp status", () => {
  let repo: string;

  beforeAll(async () => {
    repo = await testdir({
      "environments/dev.yaml": environmentFile(dev.emulator().url, MAPS),
      "environments/prod.yaml": environmentFile(prod.emulator().url, MAPS),
      "environments/down.yaml": environmentFile(`http://127.0.0.1:${await closedPort()}`, MAPS),
    });
    const exported = await egp(["export", "--env", "dev", "--out", "manifests/exported"], { cwd: repo, env });
    expect(exported.code).toBe(0);
    // Export scopes what it writes to its environment; here the manifests are every environment's.
    for (const file of ["users.yaml", "security-parameters.yaml"]) {
      const path = join(repo, "manifests/exported", file);
      await writeFile(path, (await readFile(path, "utf8")).replace(/^environments: \[dev\]\n/gm, ""));
    }
    await setTitle("anguyen", "Head of Everything");
  }, 60_000);

  it("shows every environment, the unreachable one with its reason on one line, and exits 1", async () => {
    const run = await egp(["status"], { cwd: repo, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("");
    const out = lines(run.stdout);
    expect(out[0]).toMatch(/^environment\s+status\s+version\s+drift\s+wants\s+runs\s+pending apply$/);
    expect(out[1]).toMatch(/^dev\s+matches\s+6\.14\.0\s+0\s+-\s+-\s+-$/);
    expect(out[2]).toMatch(/^down\s+unreachable\s+-\s+-\s+-\s+-\s+-$/);
    expect(out[3]).toMatch(/^prod\s+drifted\s+6\.14\.0\s+1 \(User 1\)\s+-\s+-\s+-$/);
    expect(out[4]).toMatch(/^down: EGP_CONNECTION .*ECONNREFUSED/);
    expect(out[5]).toBe("3 environments: 1 matching, 1 drifted, 1 unreachable");
    expect(out).toHaveLength(6);
    expect(run.stdout).not.toContain(PASSWORD);
  }, 60_000);

  it("prints the same from the built CLI (dist/, as the published package runs)", async () => {
    const [source, built] = await Promise.all([
      egp(["status", "--env", "dev", "down"], { cwd: repo, env }),
      egp(["status", "--env", "dev", "down"], { cwd: repo, env: { ...env, EGP_USE_DIST: "1" } }),
    ]);
    expect(built.code).toBe(1);
    expect(built.stdout).toBe(source.stdout);
    expect(lines(built.stdout)).toHaveLength(5);
  }, 60_000);

  it("exits 2 when one drifted and every one could be read, 0 when all match", async () => {
    const both = await egp(["status", "--env", "dev", "prod", "--parallel", "1"], { cwd: repo, env });
    expect(both.code).toBe(2);
    expect(lines(both.stdout).at(-1)).toBe("2 environments: 1 matching, 1 drifted, 0 unreachable");
    const one = await egp(["status", "--env", "dev"], { cwd: repo, env });
    expect(one.code).toBe(0);
    expect(lines(one.stdout).at(-1)).toBe("1 environment: 1 matching, 0 drifted, 0 unreachable");
  }, 60_000);

  it("refuses an unknown environment in one line", async () => {
    const run = await egp(["status", "--env", "nope"], { cwd: repo, env });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      "egp: EGP_USAGE --env: no environments/nope.yaml (known: dev, down, prod)",
    ]);
  });

  it("shows what runs from the history and a pending interrupted apply", async () => {
    const planned = await egp(["plan", "--env", "prod", "--out", "prod.plan.json"], { cwd: repo, env });
    expect(planned.code).toBe(0);
    const plan = readPlanFile(await readFile(join(repo, "prod.plan.json"), "utf8"));
    const stateDir = join(repo, ".egp");
    Journal.open(stateDir, plan);
    // The repository has no egp.yaml: its store is the folder .egp/store.
    await publishInstall(signed(join(stateDir, "store")), stateDir, {
      formatVersion: 1,
      id: "0123456789ab",
      environment: "prod",
      sourceEnvironment: "dev",
      plan: plan.id,
      package: { name: "egp-risk-register", digest: "0".repeat(64) },
      snapshot: null,
      created: [],
      startedAt: "2026-11-20T10:00:00.000Z",
      installedAt: "2026-11-20T10:02:00.000Z",
      rollbacks: [],
    });
    const run = await egp(["status", "--env", "prod", "--json"], { cwd: repo, env });
    expect(run.code).toBe(2);
    const [report] = lines(run.stdout).map((line) => JSON.parse(line));
    expect(report.environments).toEqual([
      {
        environment: "prod",
        reachable: true,
        version: "6.14.0",
        drift: { User: 1 },
        driftTotal: 1,
        upstream: [],
        wants: null,
        runs: {
          package: "egp-risk-register",
          from: "dev",
          install: "0123456789ab",
          at: "2026-11-20T10:02:00.000Z",
          verifiedAt: null,
          rolledBackAt: null,
        },
        lastInstall: {
          package: "egp-risk-register",
          from: "dev",
          at: "2026-11-20T10:02:00.000Z",
          done: true,
        },
        pending: { plan: plan.id, done: 0, steps: plan.steps.length, startedAt: expect.any(String) },
      },
    ]);
    const text = await egp(["status", "--env", "prod"], { cwd: repo, env });
    expect(lines(text.stdout)[1]).toContain(
      `"egp-risk-register" from dev (install 0123456789ab, installed 2026-11-20T10:02:00.000Z)  plan ${plan.id}, 0 of ${plan.steps.length} steps done`,
    );
  }, 60_000);

  it("shows a refused login as that environment's reason, never its password, and reads the others", async () => {
    const wrong = "Wrong#Secret-4711";
    const path = join(repo, "environments/refused.yaml");
    const text = environmentFile(dev.emulator().url, MAPS)
      .replace("username: sysadmin", "username: nobody")
      .replace("EGP_TEST_PASSWORD", "EGP_WRONG_PASSWORD");
    await writeFile(path, text);
    try {
      const run = await egp(["status", "--env", "refused", "dev"], {
        cwd: repo,
        env: { ...env, EGP_WRONG_PASSWORD: wrong },
      });
      expect(run.code).toBe(1);
      const out = lines(run.stdout);
      expect(out[2]).toMatch(/^refused\s+login refused\s/);
      expect(out[1]).toMatch(/^dev\s+matches\s/);
      expect(out[3]).toMatch(/^refused: EGP_LOGIN_FAILED .*the login as nobody was refused/);
      expect(`${run.stdout}${run.stderr}`).not.toContain(wrong);
    } finally {
      await rm(path);
    }
  }, 60_000);

  it("writes markdown with names in code, for a job summary", async () => {
    const run = await egp(["status", "--format", "markdown"], { cwd: repo, env });
    expect(run.code).toBe(1);
    const out = lines(run.stdout);
    expect(out[0]).toBe("## egp status");
    expect(out).toContain("| environment | status | version | drift | wants | runs | pending apply | why |");
    expect(out.find((line) => line.startsWith("| `down` | unreachable | - | - |"))).toMatch(
      /\| `EGP_CONNECTION .*ECONNREFUSED[^`]*` \|$/,
    );
    expect(out.find((line) => line.startsWith("| `dev` "))).toBe(
      "| `dev` | matches | `6.14.0` | `0` | - | - | - |  |",
    );
  }, 60_000);
});
