// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import type { EmulatorOptionsInput } from "../../src/emulator/options.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, exampleOnEmulators, ROOT } from "../helpers/cli.ts";

/*
 * An interrupted apply is resumed only when the same plan is applied
 * again; any other apply plans afresh; Ctrl-C (and SIGTERM) stop cleanly.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };

let running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.map((e) => e.close()));
  running = [];
});

async function emulators(installMs: number): Promise<{ dev: Emulator; prod: Emulator }> {
  const start = (options: EmulatorOptionsInput) => startEmulator({ port: 0, ...options });
  const [dev, prod] = await Promise.all([
    start({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 50 } }),
    start({ seed: "demo-prod", jobs: { generateMs: 20, installMs } }),
  ]);
  running.push(dev, prod);
  return { dev, prod };
}

const exampleOn = (dev: Emulator, prod: Emulator, concurrency = 4) =>
  exampleOnEmulators({ dev: dev.url, prod: prod.url }, { concurrency, quick: true });

/** Removes the user document of `userName` from the example's users.yaml. */
function removeUser(dir: string, userName: string): void {
  const file = join(dir, "manifests/users.yaml");
  const documents = readFileSync(file, "utf8").split(/^---$/m);
  const kept = documents.filter((doc) => !new RegExp(`^userName: ${userName}$`, "m").test(doc));
  expect(kept.length).toBe(documents.length - 1);
  writeFileSync(file, kept.join("---"));
}

interface Child {
  process: ChildProcessWithoutNullStreams;
  output(): string;
  /** Resolves once the output (stdout and stderr) shows `text`. */
  waitFor(text: string): Promise<void>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

function start(args: string[], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, [join(ROOT, "bin/egp.js"), ...args], {
    env: { PATH: process.env.PATH ?? "", ...ENV, ...env },
  });
  let output = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters.splice(0)) {
      if (output.includes(waiter.text)) waiter.resolve();
      else waiters.push(waiter);
    }
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>(
    (resolve) => child.on("exit", (code, signal) => resolve({ code, signal, output })),
  );
  return {
    process: child,
    output: () => output,
    waitFor: (text) =>
      new Promise((resolve) => {
        if (output.includes(text)) resolve();
        else waiters.push({ text, resolve });
      }),
    exit,
  };
}

const applyArgs = (dir: string, ...more: string[]) => ["apply", "--env", "local-prod", "--dir", dir, ...more];
const createdPackages = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).filter((p) => p.Origin === "Created").length;
const installs = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).reduce((sum, p) => sum + p.Installs.length, 0);
const lockFile = (dir: string) => join(dir, ".egp/locks/local-prod.lock");
const INTERRUPTED = /Interrupted: (\d+) of (\d+) steps done, (\d+) not started/;

/** Runs apply one step at a time and interrupts it as its first step starts. */
async function interruptAtFirstStep(dir: string): Promise<string> {
  const child = start(applyArgs(dir, "--yes"));
  await child.waitFor(": started");
  child.process.kill("SIGINT");
  const { code, output } = await child.exit;
  expect(code).toBe(130);
  expect(output).toMatch(INTERRUPTED);
  return output;
}

describe("egp apply after an interrupt: the same plan resumes, any other plans afresh", () => {
  it("plans afresh when a document was removed after Ctrl-C, shows the plan and discards the old run", async () => {
    const { dev, prod } = await emulators(50);
    const dir = await exampleOn(dev, prod, 1);
    await interruptAtFirstStep(dir);
    expect(prod.store.userByName("kmurphy")).toBeUndefined();

    // plan and drift say, in one line, that an interrupted apply is pending and how to end it.
    const plan = await egp(["plan", "--env", "local-prod", "--dir", dir], { env: ENV });
    expect(plan.code).toBe(0);
    const notice = plan.stderr.split("\n").filter((l) => l.includes("interrupted apply is pending"));
    expect(notice).toHaveLength(1);
    expect(notice[0]).toMatch(/local-prod: plan [0-9a-f]{16}, \d+ of \d+ steps done/);
    expect(notice[0]).toContain("'egp apply --env local-prod --resume'");
    expect(notice[0]).toContain("'egp apply --env local-prod --discard'");
    const drift = await egp(["drift", "--env", "local-prod", "--dir", dir], { env: ENV });
    expect(drift.stderr).toContain("An interrupted apply is pending for local-prod");

    removeUser(dir, "kmurphy");
    const second = await egp(applyArgs(dir, "--yes"), { env: ENV });
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain("Resuming plan");
    expect(second.stdout).toMatch(/An interrupted apply is pending for local-prod \(plan [0-9a-f]{16}/);
    expect(second.stdout).toContain("egp will perform the following actions on local-prod");
    expect(second.stdout).toMatch(
      /Discarded the interrupted apply \(.*\), superseded by plan [0-9a-f]{16}\./,
    );
    expect(second.stdout).toContain("Verified: local-prod matches the manifests.");
    expect(prod.store.userByName("kmurphy")).toBeUndefined();
    expect(createdPackages(dev)).toBe(1);

    const after = await egp(["plan", "--env", "local-prod", "--dir", dir], { env: ENV });
    expect(after.stderr).not.toContain("interrupted apply");
  }, 60_000);

  it("applies a newer reviewed plan file, not the interrupted run's plan", async () => {
    const { dev, prod } = await emulators(50);
    const dir = await exampleOn(dev, prod, 1);
    await interruptAtFirstStep(dir);
    removeUser(dir, "kmurphy");
    const planFile = join(dir, "newer-plan.json");
    const planned = await egp(["plan", "--env", "local-prod", "--out", planFile, "--dir", dir], { env: ENV });
    expect(planned.code).toBe(0);
    const newer = JSON.parse(readFileSync(planFile, "utf8")) as { id: string };

    const applied = await egp(applyArgs(dir, planFile), { env: ENV });
    expect(applied.code).toBe(0);
    expect(applied.stdout).not.toContain("Resuming plan");
    expect(applied.stdout).toContain(`superseded by plan ${newer.id}.`);
    expect(prod.store.userByName("kmurphy")).toBeUndefined();
    expect(prod.store.userByName("hwright")).toBeDefined();
  }, 60_000);

  it("refuses to resume a plan whose manifests changed since, and discards on request", async () => {
    const { dev, prod } = await emulators(50);
    const dir = await exampleOn(dev, prod, 1);
    await interruptAtFirstStep(dir);
    removeUser(dir, "kmurphy");
    const resumed = await egp(applyArgs(dir, "--resume", "--yes"), { env: ENV });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toMatch(
      /^egp: EGP_PLAN_STALE the interrupted plan [0-9a-f]{16} is stale: the manifests or environment files changed since it was made\./,
    );
    expect(prod.store.userByName("kmurphy")).toBeUndefined();

    const discarded = await egp(applyArgs(dir, "--discard"), { env: ENV });
    expect(discarded.code).toBe(0);
    expect(discarded.stdout).toMatch(/^Discarded the interrupted apply of local-prod \(plan [0-9a-f]{16}/);
    const none = await egp(applyArgs(dir, "--resume", "--yes"), { env: ENV });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      "egp: EGP_APPLY_REFUSED --resume: no interrupted apply is pending for local-prod\n",
    );
  }, 60_000);
});

// One step at a time: when the install starts, it is the only step in flight, whatever the load.
describe("egp apply: Ctrl-C and SIGTERM", () => {
  it("lets the install in flight finish, says what was done, exits 130, and the same plan file resumes", async () => {
    const { dev, prod } = await emulators(2_500);
    const dir = await exampleOn(dev, prod, 1);
    const planFile = join(dir, "plan.json");
    expect(
      (await egp(["plan", "--env", "local-prod", "--out", planFile, "--dir", dir], { env: ENV })).code,
    ).toBe(0);
    const child = start(applyArgs(dir, planFile));
    await child.waitFor("Package/GRC Core#install (local-prod): started");
    child.process.kill("SIGINT");
    const { code, output } = await child.exit;
    expect(code).toBe(130);
    expect(output).toContain(
      "Interrupt received: starting no new steps; waiting for 1 step(s) in flight, 30 s left (interrupt again to stop at once).",
    );
    expect(output).toContain("Package/GRC Core#install (local-prod): done");
    expect(output).toMatch(/^egp: EGP_INTERRUPTED Interrupted: /m);
    const [, done, total, notStarted] = output.match(INTERRUPTED) ?? [];
    expect(Number(notStarted)).toBeGreaterThanOrEqual(1); // verify, at least
    expect(Number(done) + Number(notStarted)).toBe(Number(total));
    expect(output).toContain("Resume with 'egp apply --env local-prod --resume'.");
    expect(output).not.toContain("Package/GRC Core#verify (local-prod): started");
    expect(existsSync(lockFile(dir))).toBe(false);

    const resumed = await egp(applyArgs(dir, planFile), { env: ENV });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/Resuming plan [0-9a-f]{16} from .* \(\d+ of \d+ steps done\)/);
    expect(resumed.stdout).toContain("Package/GRC Core#install (local-prod): done in an earlier run, reused");
    expect(resumed.stdout).toContain("Verified: local-prod matches the manifests.");
    expect(createdPackages(dev)).toBe(1);
    expect(installs(prod)).toBe(1);
  }, 60_000);

  it("stops at once on a second signal (SIGTERM then SIGINT); --resume waits for that install instead of repeating it", async () => {
    const { dev, prod } = await emulators(4_000);
    const dir = await exampleOn(dev, prod, 1);
    const child = start(applyArgs(dir, "--yes"));
    await child.waitFor("Package/GRC Core#install (local-prod): started");
    const sent = Date.now();
    child.process.kill("SIGTERM");
    await child.waitFor("Interrupt received");
    child.process.kill("SIGINT");
    const { code, output } = await child.exit;
    expect(code).toBe(130);
    expect(Date.now() - sent).toBeLessThan(3_000);
    expect(output).toMatch(
      /^egp: EGP_INTERRUPTED Interrupted: \d+ of \d+ steps done, \d+ not started, 1 in flight/m,
    );
    expect(output).not.toContain("Package/GRC Core#install (local-prod): done");
    expect(existsSync(lockFile(dir))).toBe(false);

    const resumed = await egp(applyArgs(dir, "--resume", "--yes"), { env: ENV });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("Resuming plan");
    expect(resumed.stdout).toContain("Verified: local-prod matches the manifests.");
    expect(createdPackages(dev)).toBe(1);
    expect(installs(prod)).toBe(1);
  }, 60_000);

  it("exits when the steps in flight outlast the grace time, with the countdown shown", async () => {
    const { dev, prod } = await emulators(6_000);
    const dir = await exampleOn(dev, prod, 1);
    const child = start(applyArgs(dir, "--yes"), { EGP_INTERRUPT_GRACE_SECONDS: "1" });
    await child.waitFor("Package/GRC Core#install (local-prod): started");
    child.process.kill("SIGINT");
    const { code, output } = await child.exit;
    expect(code).toBe(130);
    expect(output).toContain("waiting for 1 step(s) in flight, 1 s left");
    expect(output).toMatch(
      /^egp: EGP_INTERRUPTED Interrupted: \d+ of \d+ steps done, \d+ not started, 1 in flight/m,
    );
    expect(existsSync(lockFile(dir))).toBe(false);
  }, 60_000);
});
