// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import type { EmulatorOptionsInput } from "../../src/emulator/options.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, exampleOnEmulators, exampleTree, ROOT, type Run } from "../helpers/cli.ts";
import { emulatorsPerTest, Raw } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };

const startOne = emulatorsPerTest();

async function emulator(options: EmulatorOptionsInput): Promise<Emulator> {
  return startOne(options);
}

/** The example repository, with both environments pointed at emulators this test runs. */
const exampleOn = (dev: Emulator, prod: Emulator) =>
  exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });

function usernames(emulatorInstance: Emulator): string[] {
  return emulatorInstance.store.allUsers().map((u) => u.user.UserName.toLowerCase());
}

function createdPackages(emulatorInstance: Emulator): number {
  return Object.values(packagesOf(emulatorInstance.store).byId).filter((p) => p.Origin === "Created").length;
}

describe("egp apply: promotion end to end", () => {
  it("applies the example to local-prod, and a following plan shows no changes", async () => {
    const dir = await testdir(exampleTree());
    const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir]);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/Apply complete: 2 added, 3 changed, 0 destroyed, 1 promoted\./);
    expect(applied.stdout).toContain("Verified: local-prod matches the manifests.");

    const plan = await egp(["plan", "--env", "local-prod", "--detailed-exitcode", "--dir", dir]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain("No changes.");

    // The target now has the source's objects, under the source's GUIDs, and the declared users.
    const [dev, prod] = await Promise.all([
      emulator({ dataFile: join(dir, ".egp/local-dev.json") }),
      emulator({ dataFile: join(dir, ".egp/local-prod.json") }),
    ]);
    const apps = async (e: Emulator) => {
      const raw = new Raw(e.url);
      const response = await raw.read("/core/system/application", await raw.token());
      return Object.fromEntries(
        response.body.map((env: { RequestedObject: { Name: string; Guid: string } }) => [
          env.RequestedObject.Name,
          env.RequestedObject.Guid,
        ]),
      );
    };
    const [devApps, prodApps] = await Promise.all([apps(dev), apps(prod)]);
    for (const name of ["Risk Register", "Controls", "Policies", "Findings"]) {
      expect(prodApps[name], name).toBe(devApps[name]);
    }
    expect(usernames(prod)).toEqual(expect.arrayContaining(["anguyen", "cmendes", "ejohansson", "kmurphy"]));
    expect(prod.store.allSecurityParameters().map((p) => p.Name)).toContain("Contractor Parameter");
    expect(prod.store.userByName("kmurphy")?.user.ForcePasswordChange).toBe(true);
  });
});

/** Runs apply and SIGKILLs it once its output shows `marker`, after `delayMs`. */
function applyKilledAt(
  dir: string,
  marker: string,
  delayMs: number,
): Promise<{ stdout: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, "bin/egp.js"), "apply", "--env", "local-prod", "--yes", "--dir", dir],
      {
        env: { PATH: process.env.PATH ?? "", ...ENV },
      },
    );
    let stdout = "";
    let armed = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!armed && stdout.includes(marker)) {
        armed = true;
        setTimeout(() => child.kill("SIGKILL"), delayMs);
      }
    });
    child.on("exit", (_code, signal) => resolve({ stdout, killed: signal === "SIGKILL" }));
  });
}

describe("egp apply: resume after a crash", () => {
  it("finishes after SIGKILL during a slow install, with one package and no duplicates", async () => {
    const dev = await emulator({ seed: "demo-dev", jobs: { generateMs: 50, installMs: 200 } });
    // The install outlasts the second run's start and plan by far, also on a loaded machine: the
    // second run must find it still running, or its fresh plan has nothing left to supersede.
    const prod = await emulator({ seed: "demo-prod", jobs: { generateMs: 50, installMs: 8_000 } });
    const dir = await exampleOn(dev, prod);

    const first = await applyKilledAt(dir, "Package/GRC Core#install (local-prod): started", 300);
    expect(first.killed).toBe(true);
    expect(first.stdout).not.toContain("Apply complete");
    expect(createdPackages(dev)).toBe(1);

    // A plain apply plans afresh (it is not the same plan), but first waits for the install the
    // killed run had asked for: it is never asked for again, and what it did is seen by the plan.
    const second = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: ENV });
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain("Resuming plan");
    expect(second.stdout).toMatch(/The install [0-9a-f]{12} is done; planning from the live state\./);
    expect(second.stdout).toMatch(/Discarded the interrupted apply .*|superseded by plan [0-9a-f]{16}\./);

    expect(createdPackages(dev)).toBe(1);
    const installs = Object.values(packagesOf(prod.store).byId).reduce((n, p) => n + p.Installs.length, 0);
    expect(installs).toBe(1);
    const names = usernames(prod);
    expect(new Set(names).size).toBe(names.length);
    const plan = await egp(["plan", "--env", "local-prod", "--detailed-exitcode", "--dir", dir], {
      env: ENV,
    });
    expect(plan.code).toBe(0);
  }, 60_000);
});

describe("egp apply: guards", () => {
  it("refuses a stale saved plan, saying what changed", async () => {
    const dev = await emulator({ seed: "demo-dev" });
    const prod = await emulator({ seed: "demo-prod" });
    const dir = await exampleOn(dev, prod);
    const planned = await egp(
      ["plan", "--env", "local-prod", "--out", join(dir, "plan.json"), "--dir", dir],
      { env: ENV },
    );
    expect(planned.code).toBe(0);

    // An out-of-band change: someone retitles a user on the instance.
    const record = prod.store.userByName("ejohansson") ?? prod.store.userByName("anguyen");
    if (!record) throw new Error("demo-prod has neither ejohansson nor anguyen");
    record.user.Title = "Changed by hand";

    const applied = await egp(["apply", "--env", "local-prod", join(dir, "plan.json"), "--dir", dir], {
      env: ENV,
    });
    expect(applied.code).toBe(1);
    const lines = applied.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^egp: EGP_PLAN_STALE the saved plan [0-9a-f]{16} is stale: the live users of local-prod changed since it was made/,
    );
    expect(createdPackages(dev)).toBe(0);
  });

  it("refuses a saved plan edited after it was made: a step turned into a delete, or roles added", async () => {
    const dev = await emulator({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 50 } });
    const prod = await emulator({ seed: "demo-prod", jobs: { generateMs: 20, installMs: 50 } });
    const dir = await exampleOn(dev, prod);
    const file = join(dir, "plan.json");
    expect((await egp(["plan", "--env", "local-prod", "--out", file, "--dir", dir], { env: ENV })).code).toBe(
      0,
    );
    const reviewed = readFileSync(file, "utf8");
    type Step = { id: string; op: string; input: Record<string, unknown> };
    const tamper = (edit: (steps: Step[]) => void) => {
      const plan = JSON.parse(reviewed) as { steps: Step[] };
      edit(plan.steps);
      writeFileSync(file, JSON.stringify(plan));
    };
    const step = (steps: Step[], id: string) => {
      const found = steps.find((s) => s.id === id);
      if (!found) throw new Error(`no step ${id} in the plan`);
      return found;
    };

    tamper((steps) => {
      step(steps, "User/cmendes#update").op = "user.delete";
    });
    const deleted = await egp(["apply", "--env", "local-prod", file, "--dir", dir], { env: ENV });
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toMatch(
      /^egp: EGP_PLAN_MISMATCH the saved plan [0-9a-f]{16} does not hold together as egp makes plans \(step User\/cmendes#update runs user\.delete, which an update of a User never runs; .*step User\/cmendes#update\.op: "user\.delete" in the saved plan, "user\.update" in a fresh plan.*\); it was changed after it was made\. Run egp plan again\.\n$/,
    );
    expect(prod.store.userByName("cmendes")).toBeDefined();

    tamper((steps) => {
      step(steps, "User/kmurphy#create").input.roles = [1];
    });
    const admin = await egp(["apply", "--env", "local-prod", file, "--dir", dir], { env: ENV });
    expect(admin.code).toBe(1);
    expect(admin.stderr).toContain(
      "step User/kmurphy#create.input.roles[0]: 1 in the saved plan, 2 in a fresh plan",
    );
    expect(prod.store.userByName("kmurphy")).toBeUndefined();
    expect(createdPackages(dev)).toBe(0);

    writeFileSync(file, reviewed);
    const applied = await egp(["apply", "--env", "local-prod", file, "--dir", dir], { env: ENV });
    expect(applied.code).toBe(0);
  });

  it("applies a fresh saved plan without asking", async () => {
    const dev = await emulator({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 50 } });
    const prod = await emulator({ seed: "demo-prod", jobs: { generateMs: 20, installMs: 50 } });
    const dir = await exampleOn(dev, prod);
    await egp(["plan", "--env", "local-prod", "--out", join(dir, "plan.json"), "--dir", dir], { env: ENV });
    const applied = await egp(["apply", "--env", "local-prod", join(dir, "plan.json"), "--dir", dir], {
      env: ENV,
    });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("Verified: local-prod matches the manifests.");
  });

  it("refuses a second apply while the lock is held", async () => {
    const dir = await testdir(exampleTree());
    mkdirSync(join(dir, ".egp/locks"), { recursive: true });
    const holder = {
      pid: process.pid,
      host: hostname(),
      startedAt: new Date().toISOString(),
      command: "egp apply --env local-prod",
    };
    writeFileSync(join(dir, ".egp/locks/local-prod.lock"), JSON.stringify(holder));
    const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toMatch(
      new RegExp(`^egp: EGP_LOCKED local-prod is locked by pid ${process.pid} on `),
    );
    expect(existsSync(join(dir, ".egp/local-prod.json"))).toBe(false);
  });

  it("takes over a lock whose process is gone", async () => {
    const dir = await testdir(exampleTree());
    mkdirSync(join(dir, ".egp/locks"), { recursive: true });
    const holder = {
      pid: 2 ** 22 + 12345,
      host: hostname(),
      startedAt: new Date().toISOString(),
      command: "egp apply",
    };
    writeFileSync(join(dir, ".egp/locks/local-prod.lock"), JSON.stringify(holder));
    const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir]);
    expect(applied.code).toBe(0);
    expect(existsSync(join(dir, ".egp/locks/local-prod.lock"))).toBe(false);
  });

  it("refuses to ask on a non-TTY without --yes", async () => {
    const dir = await testdir(exampleTree());
    const applied = await egp(["apply", "--env", "local-prod", "--dir", dir]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toBe(
      "egp: EGP_USAGE apply: not a terminal, so nobody can answer the question; pass --yes, or apply a saved plan file\n",
    );
  });
});

/** Every file below `dir`, as text (binary files too: a secret in a zip would still show). */
function filesBelow(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (statSync(path).isFile()) out.push({ path, text: readFileSync(path, "latin1") });
  }
  return out;
}

describe("egp apply: secrets", () => {
  it("no password or session token appears in any output or file of the run", async () => {
    const dev = await emulator({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 50 } });
    const prod = await emulator({ seed: "demo-prod", jobs: { generateMs: 20, installMs: 50 } });
    const tokens: string[] = [];
    for (const e of [dev, prod]) {
      const open = e.store.openSession.bind(e.store);
      e.store.openSession = (userId: number) => {
        const session = open(userId);
        tokens.push(session.token);
        return session;
      };
    }
    const dir = await exampleOn(dev, prod);
    const initial = "Initial#Secret-9731";
    writeFileSync(
      join(dir, "manifests/extra-user.yaml"),
      "kind: User\nuserName: zsecret\nfirstName: Zoe\nlastName: Secret\ninitialPassword: ${EGP_ZOE_PASSWORD}\n",
    );
    const env = { ...ENV, EGP_ZOE_PASSWORD: initial };
    const runs: Run[] = [
      await egp(
        [
          "plan",
          "--env",
          "local-prod",
          "--out",
          join(dir, "plan.json"),
          "--log-level",
          "trace",
          "--dir",
          dir,
        ],
        { env },
      ),
      await egp(["apply", "--env", "local-prod", "--yes", "--log-level", "trace", "--dir", dir], { env }),
      await egp(["drift", "--env", "local-prod", "--format", "json", "--log-level", "trace", "--dir", dir], {
        env,
      }),
    ];
    // drift exits 2: what only prod has of the promoted objects is open until someone acts on it.
    expect(runs.map((r) => r.code)).toEqual([0, 0, 2]);
    expect(prod.store.userByName("zsecret")).toBeDefined();
    expect(tokens.length).toBeGreaterThan(0);

    const outputs = [
      ...runs.flatMap((r) => [
        { path: "stdout", text: r.stdout },
        { path: "stderr", text: r.stderr },
      ]),
      ...filesBelow(dir),
    ];
    const forbidden = [PASSWORD, initial, ...tokens];
    for (const { path, text } of outputs) {
      for (const secret of forbidden)
        expect(text.includes(secret), `${secret.slice(0, 4)}… in ${path}`).toBe(false);
    }
    // The generated password of kmurphy is known only as a salted hash: no word of any output may match it.
    const record = prod.store.userByName("kmurphy");
    if (!record) throw new Error("kmurphy was not created");
    const matches = (word: string) =>
      createHash("sha256").update(record.salt).update("\0").update(word).digest("hex") ===
      record.passwordHashes[0];
    for (const { path, text } of outputs) {
      const words = text.split(/[\s"',:;{}[\]()=]+/).filter((w) => w.length >= 14 && w.length <= 64);
      expect(words.some(matches), `generated password in ${path}`).toBe(false);
    }
  }, 60_000);
});
