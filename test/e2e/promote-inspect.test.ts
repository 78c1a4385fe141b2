import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_ARTIFACT_LIMITS } from "../../src/apply/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { packageById, packagesOf } from "../../src/emulator/packages/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { egp, exampleOnEmulators, ROOT } from "../helpers/cli.ts";
import { generatedOn, swapGenerated } from "../helpers/swap-package.ts";
import { rawZip, readZipEntries } from "../helpers/zip.ts";

/*
 * Apply uploads a package to the target while it downloads it from the source, and
 * inspects the file once the download is complete, as any zip (docs/apply.md). A package that fails
 * the inspection is never installed, and the run says so, naming the copy it left on the target.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };
let running: Emulator[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.map((e) => e.close()));
  running = [];
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `prod` takes more entries in a package than egp does: what egp refuses, it stores. */
async function emulators(): Promise<{ dev: Emulator; prod: Emulator; devDir: string }> {
  const devDir = mkdtempSync(join(tmpdir(), "egp-promote-dev-"));
  dirs.push(devDir);
  const jobs = { generateMs: 20, installMs: 20 };
  const [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", jobs, workDir: devDir }),
    startEmulator({ port: 0, seed: "demo-prod", jobs, limits: { zipEntries: 2 * MAX_ENTRIES } }),
  ]);
  running.push(dev, prod);
  return { dev, prod, devDir };
}

const MAX_ENTRIES = DEFAULT_ARTIFACT_LIMITS.maxEntries;

/** The example's package (manifests/packages.yaml), as generated on dev: its file in dev's folder. */
function grcCore(dev: Emulator, devDir: string): Promise<string> {
  const objects = [
    ...["risks", "controls", "policies", "findings"].map((app) => ({
      Guid: demoGuid(app),
      Type: "Application" as const,
    })),
    { Guid: "f6ad3b50-dc4f-53ce-9630-6ae114cf566f", Type: "SubForm" as const },
    { Guid: "f38aad5e-2d81-5d69-aadc-02fa7db00617", Type: "GlobalReport" as const },
  ];
  return generatedOn(dev, devDir, objects, ENV.EGP_TEST_PASSWORD);
}

/** `file` with more entries than egp takes of any zip: small assets, which the emulator stores unread. */
async function overfull(file: string): Promise<string> {
  const entries = [...(await readZipEntries(file))].map(([name, data]) => ({ name, data }));
  const assets = Array.from({ length: MAX_ENTRIES }, (_, i) => ({
    name: `assets/${i}.txt`,
    data: Buffer.from("x"),
  }));
  const padded = `${file}.overfull.zip`;
  writeFileSync(padded, rawZip([...entries, ...assets]));
  return padded;
}

describe("egp apply: a package uploaded while it downloads", () => {
  it("is uploaded alongside the download but never installed, and the run says so", async () => {
    const { dev, prod, devDir } = await emulators();
    const wrong = await overfull(await grcCore(dev, devDir));
    const swap = swapGenerated(dev, devDir, wrong);
    const uploadedTo = (emulator: Emulator) =>
      Object.values(packagesOf(emulator.store).byId).filter((p) => p.Origin === "Uploaded");
    const before = uploadedTo(prod).length;

    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: ENV });

    expect(swap.swapped).toHaveLength(1);
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    expect(applied.stdout).toMatch(
      new RegExp(
        `#download \\(local-dev\\): FAILED: EGP_ARTIFACT_REJECTED package \\S+ rejected: more than ${MAX_ENTRIES} entries: \\S+; not installed \\(its copy uploaded alongside the download is package (\\d+) on the target, left uninstalled\\)`,
      ),
    );
    const copyId = Number(/is package (\d+) on the target/.exec(applied.stdout)?.[1]);
    // Uploaded: one copy (the target's snapshot package is made there, not uploaded).
    expect(uploadedTo(prod)).toHaveLength(before + 1);
    const prodPackages = Object.values(packagesOf(prod.store).byId);
    // The copy is on the target, whole, and no install of anything was ever asked for.
    expect(packageById(prod.store, copyId)).toMatchObject({
      Origin: "Uploaded",
      Size: statSync(wrong).size,
      Installs: [],
    });
    expect(prodPackages.flatMap((p) => p.Installs)).toEqual([]);
    expect(applied.stdout).not.toMatch(/#install \(local-prod\): (started|done)/);
    expect(applied.stdout + applied.stderr).not.toMatch(/\n\s+at .*\.(ts|js):\d+/);
  });

  it("a package that passes is installed from the copy uploaded alongside the download", async () => {
    const { dev, prod } = await emulators();
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    const applied = await egp(["--json", "apply", "--env", "local-prod", "--yes", "--dir", dir], {
      env: ENV,
    });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const events = applied.stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The upload's progress is the download step's: it ran while the download did.
    const progress = (message: string) =>
      events.filter((e) => e.event === "progress" && e.message === message).map((e) => e.op);
    // (The target's snapshot downloads too, in its own step.)
    expect(new Set(progress("downloading"))).toEqual(
      new Set(["package.download", "package.snapshot-download"]),
    );
    expect(new Set(progress("sending on to local-prod as it downloads: uploaded"))).toEqual(
      new Set(["package.download"]),
    );
    // One package on the target, installed once.
    const copies = Object.values(packagesOf(prod.store).byId).filter((p) => p.Origin === "Uploaded");
    expect(copies.map((p) => p.Installs.length)).toEqual([1]);
  });

  it("killed while the upload alongside the download is in flight, a re-run installs one inspected copy once", async () => {
    const { dev, prod } = await emulators();
    // The target sits on the first upload for a while: the kill lands while it is in flight.
    prod.faults.script({ method: "POST", path: "/package/upload", action: { delayMs: 1_500 } });
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    const args = [join(ROOT, "bin/egp.js"), "--json", "apply", "--env", "local-prod", "--yes", "--dir", dir];
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? "", ...ENV } });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('as it downloads: uploaded"')) child.kill("SIGKILL");
    });
    const killed = await new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    expect(killed).toBe("SIGKILL");
    // Killed inside the download step, its upload alongside under way.
    const uploading = output.split("\n").find((line) => line.includes('as it downloads: uploaded"'));
    expect(JSON.parse(uploading ?? "{}")).toMatchObject({ event: "progress", op: "package.download" });
    const installEvents = output
      .split("\n")
      .filter((line) => line.includes('"type":"step"') && line.includes('"op":"package.install"'));
    expect(installEvents).toEqual([]);
    await prod.faults.settled(); // the held upload is answered, or dropped, before the re-run

    const rerun = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: ENV });
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    const copies = Object.values(packagesOf(prod.store).byId).filter((p) => p.Origin === "Uploaded");
    const installed = copies.filter((p) => p.Installs.length > 0);
    expect(installed).toHaveLength(1);
    expect(installed[0]?.Installs).toHaveLength(1);
    // Whatever the killed run left on the target is whole and never installed.
    const source = Object.values(packagesOf(dev.store).byId).find((p) => p.Description?.includes("[egp "));
    for (const copy of copies) expect(copy.Size).toBe(source?.Size);
    expect(copies.length).toBeLessThanOrEqual(2);
  });
});
