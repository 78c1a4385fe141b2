import { afterEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { egp, exampleOnEmulators } from "../helpers/cli.ts";

/*
 * A promotion whose download has no Content-Length: the package goes on to the target as it
 * arrives, chunked; a target that refuses a body without a length gets the file after the
 * download, and the run says so at debug level only.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };
const jobs = { generateMs: 20, installMs: 50 };

let running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.map((e) => e.close()));
  running = [];
});

async function emulators(prodFaults: string) {
  const [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", jobs, faults: "noLength=1" }),
    startEmulator({ port: 0, seed: "demo-prod", jobs, faults: prodFaults }),
  ]);
  running.push(dev, prod);
  return { dev, prod, dir: await exampleOnEmulators({ dev: dev.url, prod: prod.url }) };
}

/** The packages uploaded to an emulator, with how often each was installed. */
const installsOfUploaded = (emulator: Emulator) =>
  Object.values(packagesOf(emulator.store).byId)
    .filter((p) => p.Origin === "Uploaded")
    .map((p) => p.Installs.length);

describe("egp apply: a package download without a length", () => {
  it("is uploaded to the target while it downloads, and installed once", async () => {
    const { prod, dir } = await emulators("");
    const run = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: ENV });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^Package\/GRC Core#download \(local-dev\): sending on to local-prod as it downloads: uploaded \d+(\.\d)? KiB$/m,
    );
    expect(run.stdout).not.toMatch(/#upload \(local-prod\): uploading/);
    expect(installsOfUploaded(prod)).toEqual([1]);
  }, 60_000);

  it("goes to a target that refuses a body without a length from the file, said at debug level", async () => {
    const { prod, dir } = await emulators("lengthRequired=1");
    const run = await egp(["--log-level", "debug", "apply", "--env", "local-prod", "--yes", "--dir", dir], {
      env: ENV,
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // Tried once, refused, then sent from the file by the upload step.
    expect(prod.faults.stats.byKind["411"]).toBe(1);
    expect(run.stdout).toMatch(/^Package\/GRC Core#upload \(local-prod\): uploading .* \(100%\)$/m);
    expect(installsOfUploaded(prod)).toEqual([1]);
    const said = run.stderr
      .split("\n")
      .filter((line) => /length/.test(line))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(said).toEqual([
      expect.objectContaining({
        level: 20,
        msg: "the instance refuses an upload without a length; packages go to it from a file, with one",
      }),
    ]);
  }, 60_000);

  it("refused after its bytes went: the download step takes back its 'uploaded' line, and the upload step sends the file", async () => {
    const { prod, dir } = await emulators("");
    prod.faults.script({ method: "POST", path: "/core/package/upload", times: 1, action: { status: 500 } });
    const run = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: ENV });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const download = run.stdout.split("\n").filter((line) => line.startsWith("Package/GRC Core#download "));
    const sent = download.findLastIndex((line) =>
      /: sending on to local-prod as it downloads: uploaded /.test(line),
    );
    expect(sent).toBeGreaterThanOrEqual(0);
    expect(download.slice(sent + 1), download.join("\n")).toContainEqual(
      expect.stringMatching(
        /^Package\/GRC Core#download \(local-dev\): not sent on to local-prod as it downloaded; the upload step sends the file \(\d+ ms since the step started\)$/,
      ),
    );
    expect(run.stdout).toMatch(/^Package\/GRC Core#upload \(local-prod\): uploading .* \(100%\)$/m);
    expect(installsOfUploaded(prod)).toEqual([1]);
  }, 60_000);
});
