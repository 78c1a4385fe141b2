import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, exampleOnEmulators, exampleTree, lines, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A snapshot of the target before every package install (an install has no undo of its own), release records, and
 * `egp rollback` / `egp releases`.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };
const PROD = ["--env", "local-prod"];

const startOne = emulatorsPerTest();

async function emulator(seed: string, installMs = 20): Promise<Emulator> {
  return startOne({ seed, jobs: { generateMs: 20, installMs } });
}

async function pair(installMs = 20): Promise<{ dev: Emulator; prod: Emulator; dir: string }> {
  const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod", installMs)]);
  return { dev, prod, dir: await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true }) };
}

const created = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).filter((p) => p.Origin === "Created");
const installs = (e: Emulator) =>
  Object.values(packagesOf(e.store).byId).reduce((n, p) => n + p.Installs.length, 0);

function releaseFiles(dir: string): string[] {
  try {
    return readdirSync(join(dir, ".egp/releases/local-prod")).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
}

const controlsField = (e: Emulator, name: string) => {
  const catalogue = catalogueOf(e.store);
  return catalogue.all("fields").find((f) => f.Name === name);
};

describe("egp rollback on the example", () => {
  it("after a promotion, rolls local-prod back, names Findings as created by it, and the plan differs again", async () => {
    const dir = await testdir(exampleTree());
    const applied = await egp(["apply", ...PROD, "--yes", "--dir", dir]);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("Package/GRC Core#snapshot-download (local-prod): done");
    expect(releaseFiles(dir)).toHaveLength(1);

    const rollback = await egp([
      "rollback",
      ...PROD,
      "--yes",
      "--out",
      join(dir, "rollback.json"),
      "--dir",
      dir,
    ]);
    expect(rollback.stderr).toBe("");
    expect(rollback.code).toBe(0);
    expect(rollback.stdout).toContain('Package "GRC Core" will be rolled back');
    expect(rollback.stdout).toMatch(
      /created by the promotion; the interface can't delete them: Application "Findings"/,
    );
    expect(rollback.stdout).toMatch(
      /deactivated and renamed ROLLBACK_…: Controls: "Last Tested", "Test Result"/,
    );
    expect(rollback.stdout).toContain('event rule "Ineffective control"');
    expect(rollback.stdout).toMatch(
      /Package\/GRC Core#rollback-verify \(local-prod\): done in \d+ ms \(converged; created and not removable: Application "Findings"\)/,
    );
    expect(rollback.stdout).toContain("Rollback complete");

    // The saved plan reads back as a plan file.
    const shown = await egp(["show", join(dir, "rollback.json")]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('« Package "GRC Core"');

    const plan = await egp(["plan", ...PROD, "--detailed-exitcode", "--dir", dir]);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/~ Application Controls: /);
    expect(plan.stdout).not.toMatch(/Application Findings/);

    const releases = await egp(["releases", ...PROD, "--dir", dir]);
    expect(releases.code).toBe(0);
    expect(releases.stdout).toMatch(
      /^install [0-9a-f]{12} of package "GRC Core" from local-dev, installed \S+; snapshot of .*Controls.*; created Findings; rolled back \S+\n$/,
    );
  }, 60_000);
});

describe("snapshots over HTTP", () => {
  it("writes a release record whose snapshot is the target's zip, and lists it (text and --json)", async () => {
    const { dev, prod, dir } = await pair();
    const applied = await egp(["apply", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(applied.code).toBe(0);
    // One package on each side: the promotion on the source, the snapshot on the target.
    expect(created(dev)).toHaveLength(1);
    expect(created(prod).map((p) => p.Name)).toEqual(["GRC Core (egp snapshot)"]);
    expect(
      created(prod)[0]
        ?.PackageObjects.map((o) => o.Name)
        .sort(),
    ).toEqual(["Comments", "Controls", "Policies", "Risk Register"]);

    const listed = await egp(["releases", ...PROD, "--json", "--dir", dir], { env: ENV });
    expect(listed.code).toBe(0);
    const records = lines(listed.stdout).map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record).toMatchObject({
      environment: "local-prod",
      sourceEnvironment: "local-dev",
      package: { name: "GRC Core" },
      created: [{ type: "Application", name: "Findings" }],
      rollbacks: [],
    });
    expect(record.installedAt).toEqual(expect.any(String));
    expect([...record.snapshot.objects].sort()).toEqual([
      "Comments",
      "Controls",
      "Policies",
      "Risk Register",
    ]);
    // The kept file is the one the target generated: its digest names it under .egp/artifacts.
    const zip = readFileSync(join(dir, ".egp/artifacts", `${record.snapshot.digest}.zip`));
    expect(zip.subarray(0, 2).toString()).toBe("PK");
  }, 30_000);

  it("takes no snapshot with install: { snapshot: false }, and rollback then says there is nothing to roll back to", async () => {
    const { prod, dir } = await pair();
    const file = join(dir, "manifests/packages.yaml");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(
        "install: { method: createAndUpdate, layout: keep, translations: install }",
        "install: { method: createAndUpdate, layout: keep, translations: install, snapshot: false }",
      ),
    );
    const applied = await egp(["apply", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("no snapshot (install: { snapshot: false })");
    expect(applied.stdout).not.toContain("#snapshot");
    expect(created(prod)).toHaveLength(0);

    const rollback = await egp(["rollback", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(rollback.code).toBe(1);
    expect(lines(rollback.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_RELEASE_UNUSABLE install [0-9a-f]{12} of local-prod has no snapshot \(it was off/,
      ),
    ]);
  }, 30_000);

  it("a failed snapshot stops the promotion before install (the copy sent alongside the download stays uninstalled)", async () => {
    const { prod, dir } = await pair();
    prod.faults.script({ method: "POST", path: /\/core\/package\/$/, times: 1, action: { status: 400 } });
    const applied = await egp(["apply", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(applied.code).toBe(1);
    expect(applied.stdout).toMatch(/Package\/GRC Core#snapshot \(local-prod\): FAILED: /);
    expect(applied.stdout).toContain("Package/GRC Core#upload (local-prod): skipped");
    expect(applied.stdout).toContain("Package/GRC Core#install (local-prod): skipped");
    expect(installs(prod)).toBe(0);
    // No snapshot package was made; the promoted package may have been uploaded while it
    // downloaded (an upload changes no object of the target), and is never installed.
    const onTarget = Object.values(packagesOf(prod.store).byId);
    expect(onTarget.filter((p) => p.Origin !== "Uploaded")).toEqual([]);
    expect(onTarget.length).toBeLessThanOrEqual(1);
    expect(onTarget.flatMap((p) => p.Installs)).toEqual([]);
    expect(releaseFiles(dir)).toEqual([]);
  }, 30_000);

  it("after a SIGKILL between the snapshot and the install, a re-run reuses the snapshot: no duplicate package", async () => {
    const { dev, prod, dir } = await pair(2_000);
    const first = await new Promise<{ stdout: string; killed: boolean }>((resolve) => {
      const child = spawn(
        process.execPath,
        [join(ROOT, "bin/egp.js"), "apply", ...PROD, "--yes", "--dir", dir],
        {
          env: { PATH: process.env.PATH ?? "", ...ENV },
        },
      );
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("Package/GRC Core#snapshot-download (local-prod): done")) child.kill("SIGKILL");
      });
      child.on("exit", (_code, signal) => resolve({ stdout, killed: signal === "SIGKILL" }));
    });
    expect(first.killed).toBe(true);
    expect(first.stdout).not.toContain("Package/GRC Core#install (local-prod): done");
    expect(created(prod)).toHaveLength(1);

    const second = await egp(["apply", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("Package/GRC Core#snapshot (local-prod): done in an earlier run, reused");
    expect(second.stdout).toContain(
      "Package/GRC Core#snapshot-download (local-prod): done in an earlier run, reused",
    );
    expect(created(prod)).toHaveLength(1);
    expect(created(dev)).toHaveLength(1);
    expect(installs(prod)).toBe(1);
    expect(releaseFiles(dir)).toHaveLength(1);

    // The reused snapshot is a good one: rolling back to it restores the fields it holds.
    const rollback = await egp(["rollback", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(rollback.code).toBe(0);
    expect(controlsField(prod, "ROLLBACK_Last Tested")?.IsActive).toBe(false);
  }, 60_000);

  it("rolls back to the release named by --to, not the newest, and lists both newest first", async () => {
    const { prod, dir } = await pair();
    expect((await egp(["apply", ...PROD, "--yes", "--dir", dir], { env: ENV })).code).toBe(0);
    const [first] = releaseFiles(dir).map((n) => n.slice(0, 12));
    // Undo it, then promote again: a second release, whose snapshot is the rolled-back state.
    expect((await egp(["rollback", ...PROD, "--yes", "--dir", dir], { env: ENV })).code).toBe(0);
    expect((await egp(["apply", ...PROD, "--yes", "--dir", dir], { env: ENV })).code).toBe(0);
    const listed = await egp(["releases", ...PROD, "--dir", dir], { env: ENV });
    const ids = lines(listed.stdout).map((l) => /^install ([0-9a-f]{12}) /.exec(l)?.[1]);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(first);
    expect(lines(listed.stdout)[1]).toMatch(/; rolled back \S+$/);

    const newest = await egp(["rollback", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(newest.code).toBe(0);
    expect(newest.stdout).toContain(`rolls back install ${ids[0]} of package "GRC Core" from local-dev`);
    // The newest release's snapshot has the deactivated fields already: they stay as they are.
    expect(controlsField(prod, "ROLLBACK_Last Tested")?.IsActive).toBe(false);

    const named = await egp(["rollback", ...PROD, "--to", String(first), "--yes", "--dir", dir], {
      env: ENV,
    });
    expect(named.code).toBe(0);
    expect(named.stdout).toContain(`rolls back install ${first} of package "GRC Core" from local-dev`);

    const unknown = await egp(["rollback", ...PROD, "--to", "000000000000", "--yes", "--dir", dir], {
      env: ENV,
    });
    expect(unknown.code).toBe(1);
    expect(lines(unknown.stderr)).toEqual([
      `egp: EGP_NO_RELEASE no install 000000000000 of local-prod (known: ${ids.join(", ")}); see 'egp history --env local-prod'`,
    ]);
  }, 90_000);

  it("with no release: rollback fails with one clear line, releases says there are none", async () => {
    const { prod, dir } = await pair();
    const asking = await egp(["rollback", ...PROD, "--dir", dir], { env: ENV });
    expect(asking.code).toBe(1);
    expect(asking.stderr).toBe(
      "egp: EGP_USAGE rollback: not a terminal, so nobody can answer the question; pass --yes\n",
    );
    const rollback = await egp(["rollback", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(rollback.code).toBe(1);
    expect(rollback.stderr).toBe(
      `egp: EGP_NO_RELEASE no install of local-prod to roll back: the store ${join(dir, ".egp/store")} has no history of local-prod\n`,
    );
    expect(installs(prod)).toBe(0);
    const releases = await egp(["releases", ...PROD, "--dir", dir], { env: ENV });
    expect(releases.code).toBe(0);
    expect(releases.stdout).toMatch(/^Nothing was installed on local-prod \(no history in the store /);
    const typo = await egp(["releases", "--env", "local-prdo", "--dir", dir], { env: ENV });
    expect(typo.code).toBe(1);
  }, 30_000);
});

describe("kept files are checked by content before use", () => {
  it("a snapshot file replaced by another zip, or a record whose digest is a path, is never uploaded", async () => {
    const { prod, dir } = await pair();
    const applied = await egp(["apply", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const [name] = releaseFiles(dir);
    const recordFile = join(dir, ".egp/releases/local-prod", name as string);
    const record = JSON.parse(readFileSync(recordFile, "utf8"));
    const snapshotFile = join(dir, ".egp/artifacts", `${record.snapshot.digest}.zip`);
    const packageFile = join(dir, ".egp/artifacts", `${record.package.digest}.zip`);
    const installsBefore = installs(prod);

    // Another zip (the promoted package itself) copied over the snapshot's file.
    writeFileSync(snapshotFile, readFileSync(packageFile));
    const swapped = await egp(["rollback", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(swapped.code).toBe(1);
    expect(swapped.stderr).toMatch(
      /^egp: EGP_RELEASE_UNUSABLE the snapshot of install [0-9a-f]{12} of package "GRC Core" from local-dev can't be used: package \S+ rejected: its content changed since it was kept \(its sha256 is now [0-9a-f]{64}\)\n$/,
    );

    // A record whose snapshot digest climbs out of the folder.
    writeFileSync(
      recordFile,
      JSON.stringify({ ...record, snapshot: { ...record.snapshot, digest: "../../../tmp/x" } }),
    );
    const climbing = await egp(["rollback", ...PROD, "--yes", "--dir", dir], { env: ENV });
    expect(climbing.code).toBe(1);
    expect(climbing.stderr).toMatch(
      /^egp: EGP_RELEASE_UNUSABLE \S+ is not an install record \(snapshot\.digest: expected a sha256: 64 lower-case hex characters\)\n$/,
    );
    expect(installs(prod)).toBe(installsBefore);
  }, 60_000);
});
