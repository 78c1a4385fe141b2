import { createHash } from "node:crypto";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import pino from "pino";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import yauzl from "yauzl";
import { ZipFile } from "yazl";
import { promotePackage } from "../../src/client/promote.ts";
import { packageById } from "../../src/emulator/packages/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { type PlatformClient, PlatformError } from "../../src/index.ts";
import { generatedPackage, useClientEmulator } from "./helpers/client.ts";

/*
 * A pipelined promotion, demo-dev → demo-prod over HTTP: the upload to the target runs while the
 * download from the source does, with memory bounded by the pipe between them. A download without
 * a length goes on as a chunked upload, unless the target refuses bodies without a length.
 */

const work = mkdtempSync(join(tmpdir(), "egp-client-promote-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const ASSET = 3 * 1024 * 1024;

/** A generated Findings package plus 3 MiB of stored bytes, uploaded to the source: its id there. */
async function largePackage(source: PlatformClient): Promise<number> {
  const id = await generatedPackage(source, {
    Description: "",
    PreparedBy: "promote test",
    PackageObjects: [{ Guid: demoGuid("findings"), Type: "Application" }],
  });
  const small = join(work, `small-${id}.zip`);
  await source.packages.download(id, small);
  const zip = new ZipFile();
  const from = await yauzl.openPromise(small);
  for await (const entry of from.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of (await from.openReadStreamPromise(entry)) as AsyncIterable<Buffer>)
      chunks.push(chunk);
    zip.addBuffer(Buffer.concat(chunks), entry.fileName);
  }
  from.close();
  zip.addBuffer(Buffer.alloc(ASSET, 7), "assets/evidence.bin", { compress: false });
  zip.end();
  const large = join(work, `large-${id}.zip`);
  await pipeline(zip.outputStream, createWriteStream(large));
  return source.packages.upload(large);
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("promotePackage", () => {
  const fast = { jobs: { generateMs: 20, installMs: 20 } };
  const prodDir = mkdtempSync(join(tmpdir(), "egp-client-promote-prod-"));
  afterAll(() => rmSync(prodDir, { recursive: true, force: true }));
  const dev = useClientEmulator({ seed: "demo-dev", ...fast });
  const prod = useClientEmulator({ seed: "demo-prod", ...fast, workDir: prodDir });

  /**
   * Promotes through a 64 KiB pipe and checks what every pipelined promotion must hold; `total`
   * is the progress total both sides report for a file of `size` bytes. Returns the size.
   */
  async function promotedWhole(
    source: PlatformClient,
    target: PlatformClient,
    id: number,
    file: string,
    total: (size: number) => string,
  ): Promise<number> {
    const events: string[] = [];
    const result = await promotePackage(source, target, id, file, {
      bufferBytes: 64 * 1024,
      onDownload: (p) => events.push(`down ${p.bytes}/${p.total}`),
      onUpload: (p) => events.push(`up ${p.bytes}/${p.total}`),
    });
    const size = statSync(file).size;
    expect(result).toMatchObject({ bytes: size, pipelined: true });
    expect(result.uploadError).toBeUndefined();
    expect(events.at(-1)).toMatch(new RegExp(`/${total(size)}$`));
    // The upload had sent bytes before the download had all of them: the two overlapped.
    const firstUp = events.findIndex((e) => e.startsWith("up "));
    expect(firstUp).toBeGreaterThanOrEqual(0);
    expect(firstUp).toBeLessThan(events.lastIndexOf(`down ${size}/${total(size)}`));
    // The target holds the very bytes of the file on disk.
    const uploaded = packageById(prod.emulator().store, result.uploaded as number);
    expect(uploaded).toMatchObject({ Origin: "Uploaded", Size: size });
    expect(sha256(readFileSync(join(prodDir, uploaded?.File as string)))).toBe(sha256(readFileSync(file)));
    // The file's digest was computed on the way: the caller need not read the file again.
    expect(result.sha256).toBe(sha256(readFileSync(file)));
    return size;
  }

  it("uploads to the target while it downloads from the source, through a bounded pipe", async () => {
    const source = dev.client();
    const target = prod.client();
    const id = await largePackage(source);
    const file = join(work, "promoted.zip");
    const size = await promotedWhole(source, target, id, file, (size) => `${size}`);
    expect(size).toBeGreaterThan(ASSET);
  });

  it("an upload the target refuses leaves the download whole and says why", async () => {
    const source = dev.client();
    const target = prod.client();
    const id = await largePackage(source);
    prod.emulator().faults.script({ method: "POST", path: "/package/upload", action: { status: 500 } });
    const file = join(work, "refused.zip");
    const before = Object.keys(await target.packages.list()).length;
    const result = await promotePackage(source, target, id, file, { bufferBytes: 64 * 1024 });
    expect(result.bytes).toBe(statSync(file).size);
    expect(result.uploaded).toBeUndefined();
    expect(result.uploadError).toBeInstanceOf(PlatformError);
    expect(result.sha256).toBe(sha256(readFileSync(file)));
    expect((await target.packages.list()).length).toBe(before);
  });

  it("a download without a Content-Length is pipelined into a chunked upload, byte for byte", async () => {
    const source = dev.client();
    const target = prod.client();
    const id = await largePackage(source);
    dev.emulator().faults.configure({ noLength: true });
    onTestFinished(() => dev.emulator().faults.configure({ noLength: false }));
    // No total on either side.
    await promotedWhole(source, target, id, join(work, "no-length.zip"), () => "undefined");
  });

  it("a target that refuses a body without a length gets the file after the download, said at debug", async () => {
    const source = dev.client();
    const lines: string[] = [];
    const logger = pino({ level: "debug" }, { write: (line: string) => lines.push(line) });
    const target = prod.client({ logger });
    const id = await largePackage(source);
    dev.emulator().faults.configure({ noLength: true });
    prod.emulator().faults.configure({ lengthRequired: true });
    onTestFinished(() => {
      dev.emulator().faults.configure({ noLength: false });
      prod.emulator().faults.configure({ lengthRequired: false });
    });
    const refusals = () => prod.emulator().faults.stats.byKind["411"] ?? 0;
    const before = refusals();
    const file = join(work, "length-required.zip");
    const result = await promotePackage(source, target, id, file, { bufferBytes: 64 * 1024 });
    // Refused before it took a byte: not pipelined, and the download is whole.
    expect(result).toMatchObject({ bytes: statSync(file).size, uploaded: undefined, pipelined: false });
    expect(result.uploadError).toMatchObject({ status: 411 });
    expect(result.sha256).toBe(sha256(readFileSync(file)));
    expect(refusals()).toBe(before + 1);
    const said = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(said.filter((line) => /without a length/.test(line.msg)).map((line) => line.level)).toEqual([20]);
    // The caller's fallback: the file, with its length.
    const uploadedId = await target.packages.upload(file);
    const uploaded = packageById(prod.emulator().store, uploadedId);
    expect(sha256(readFileSync(join(prodDir, uploaded?.File as string)))).toBe(sha256(readFileSync(file)));
    // The client remembers: the next promotion to this target does not try again.
    const again = await promotePackage(source, target, id, join(work, "length-required-2.zip"));
    expect(again).toMatchObject({ uploaded: undefined, pipelined: false });
    expect(again.uploadError).toBeUndefined();
    expect(refusals()).toBe(before + 1);
  });
});
