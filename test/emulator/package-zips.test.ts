import { randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import yauzl from "yauzl";
import { ZipFile } from "yazl";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { createPackage, download, generateAndWait, upload } from "../helpers/packages.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import { type Deflated, deflated, type RawEntry, rawZip, readZipEntries } from "../helpers/zip.ts";

const work = mkdtempSync(join(tmpdir(), "egp-zips-test-"));
const workDir = join(work, "emulator");
afterAll(() => rmSync(work, { recursive: true, force: true }));

const MiB = 1024 * 1024;
let count = 0;
function fileOf(bytes: Buffer): string {
  const file = join(work, `upload-${++count}.zip`);
  writeFileSync(file, bytes);
  return file;
}

async function yazlZip(build: (zip: ZipFile) => void): Promise<Buffer> {
  const zip = new ZipFile();
  build(zip);
  zip.end();
  const file = join(work, `yazl-${++count}.zip`);
  await pipeline(zip.outputStream, createWriteStream(file));
  return readFileSync(file);
}

describe("package uploads are read safely", () => {
  const { raw } = useEmulator({
    seed: "demo-dev",
    workDir,
    jobs: { generateMs: 20, installMs: 20 },
    limits: { uploadBytes: 2 * MiB, zipEntries: 50, zipExpandedBytes: 1 * MiB },
  });
  let token = "";
  let valid: RawEntry[] = [];

  beforeAll(async () => {
    token = await raw().token();
    const id = await createPackage(raw(), token, {
      Name: "valid",
      PackageObjects: [
        { Guid: demoGuid("risks"), Type: "Application" },
        { Guid: demoGuid("comments"), Type: "SubForm" },
      ],
    });
    await generateAndWait(raw(), token, id);
    const file = join(work, "valid.zip");
    await download(raw(), token, id, file);
    valid = [...(await readZipEntries(file))].map(([name, data]) => ({ name, data, deflate: true }));
  });

  /** What a rejected upload must not change: packages, metadata, and files in the work folder. */
  async function state(): Promise<Json> {
    return {
      packages: (await raw().read("/core/package", token, { prefix: "/api" })).body,
      applications: (await raw().read("/core/system/application", token)).body,
      files: readdirSync(join(workDir, "packages")).sort(),
      uploads: readdirSync(join(workDir, "uploads")),
    };
  }

  async function rejected(bytes: Buffer, key: string, status = 400): Promise<Json> {
    const before = await state();
    const response = await upload(raw(), token, fileOf(bytes));
    expect(response.status, response.text).toBe(status);
    expect(response.body.IsSuccessful).toBe(false);
    expect(response.body.ValidationMessages[0].MessageKey).toBe(key);
    expect(await state()).toEqual(before);
    expect(before.uploads).toEqual([]);
    return response.body.ValidationMessages[0];
  }

  const without = (name: string) => valid.filter((e) => e.name !== name);
  const text = (s: string) => Buffer.from(s, "utf8");

  it("a well-formed zip written by the same helper is accepted (the control case)", async () => {
    const response = await upload(raw(), token, fileOf(rawZip(valid)));
    expect(response.status, response.text).toBe(200);
    expect(response.body.RequestedObject.Id).toBeGreaterThan(0);
    const extra = await upload(
      raw(),
      token,
      fileOf(rawZip([...valid, { name: "assets/logo.png", data: randomBytes(1000) }])),
    );
    expect(extra.status, extra.text).toBe(200);
  });

  it("rejects traversal and absolute names", async () => {
    const evil = text('{"evil":true}');
    const traversal = await rejected(
      rawZip([...valid, { name: "../evil.json", data: evil }]),
      "UnsafeEntryName",
    );
    expect(traversal.Description).toContain("../evil.json");
    await rejected(rawZip([...valid, { name: "assets/../../evil.json", data: evil }]), "UnsafeEntryName");
    await rejected(rawZip([...valid, { name: "/tmp/evil.json", data: evil }]), "UnsafeEntryName");
    await rejected(rawZip([...valid, { name: "C:/evil.json", data: evil }]), "UnsafeEntryName");
    await rejected(rawZip([...valid, { name: "..\\evil.json", data: evil }]), "UnsafeEntryName");
  });

  it("rejects symbolic links", async () => {
    const bytes = await yazlZip((zip) => {
      for (const entry of valid) zip.addBuffer(entry.data, entry.name);
      zip.addBuffer(text("/etc/passwd"), "assets/link", { mode: 0o120777 });
    });
    await rejected(bytes, "SymlinkEntry");
    await rejected(
      rawZip([...valid, { name: "assets/l2", data: text("../../x"), mode: 0o120755 }]),
      "SymlinkEntry",
    );
  });

  it("rejects a zip bomb: an entry expanding past the limit", async () => {
    const bomb = { name: "assets/bomb.bin", data: Buffer.alloc(8 * MiB), deflate: true };
    const bytes = rawZip([...valid, bomb]);
    expect(bytes.length).toBeLessThan(100 * 1024);
    await rejected(bytes, "ZipExpandsTooFar");
    // A header that lies about the size is caught while the entry streams.
    await rejected(rawZip([...valid, { ...bomb, declaredSize: 100 }]), "InvalidZip");
  });

  it("rejects too many entries", async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ name: `assets/${i}.txt`, data: text(String(i)) }));
    await rejected(rawZip([...valid, ...many]), "TooManyEntries");
  });

  it("rejects what is not a zip", async () => {
    await rejected(text("this is not a zip file"), "InvalidZip");
    await rejected(Buffer.alloc(0), "InvalidZip");
  });

  it("rejects a missing or invalid manifest and missing or unlisted object files", async () => {
    await rejected(rawZip(without("manifest.json")), "ManifestMissing");
    await rejected(
      rawZip([...without("manifest.json"), { name: "manifest.json", data: text("{nope") }]),
      "ManifestInvalid",
    );
    await rejected(
      rawZip([...without("manifest.json"), { name: "manifest.json", data: text('{"FormatVersion":9}') }]),
      "ManifestInvalid",
    );
    await rejected(rawZip(without(`objects/${demoGuid("risks")}.json`)), "ObjectFileMissing");
    await rejected(
      rawZip([...valid, { name: `objects/${demoGuid("findings")}.json`, data: text("{}") }]),
      "UnexpectedEntry",
    );
    await rejected(rawZip([...valid, { name: "run.sh", data: text("rm -rf /") }]), "UnexpectedEntry");
  });

  it("an upload past the size limit is 413 and leaves no file", async () => {
    await rejected(
      rawZip([...valid, { name: "assets/big.bin", data: randomBytes(3 * MiB) }]),
      "PackageTooLarge",
      413,
    );
  });

  it("an upload that is not multipart, or has no file part, is refused", async () => {
    const before = await state();
    const json = await raw().call("/core/package/upload", {
      method: "POST",
      token,
      prefix: "/api",
      body: {},
    });
    expect(json.status).toBe(415);
    const boundary = "b0undary";
    const response = await request(`${raw().url}/api/core/package/upload`, {
      method: "POST",
      headers: {
        authorization: `Platform session-id="${token}"`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
      },
      body: `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${boundary}--\r\n`,
    });
    expect(response.statusCode).toBe(400);
    expect(((await response.body.json()) as Json).ValidationMessages[0].MessageKey).toBe(
      "PackageFileMissing",
    );
    expect(await state()).toEqual(before);
  });
});

describe("package bombs are refused before they are inflated (default limits)", () => {
  const bombDir = join(work, "bomb-emulator");
  const { raw } = useEmulator({
    seed: "demo-dev",
    workDir: bombDir,
    jobs: { generateMs: 20, installMs: 20 },
  });
  let token = "";
  let valid: RawEntry[] = [];
  const guids = ["0b0b0b0b-0000-4000-8000-000000000001", "0b0b0b0b-0000-4000-8000-000000000002"];
  const more = Array.from({ length: 8 }, (_, i) => `0b0b0b0b-0000-4000-8000-00000000001${i}`);

  beforeAll(async () => {
    token = await raw().token();
    const id = await createPackage(raw(), token, {
      Name: "valid",
      PackageObjects: [{ Guid: demoGuid("risks"), Type: "Application" }],
    });
    await generateAndWait(raw(), token, id);
    const file = join(work, "bomb-valid.zip");
    await download(raw(), token, id, file);
    valid = [...(await readZipEntries(file))].map(([name, data]) => ({ name, data, deflate: true }));
  });

  /** The valid package with `guids` added to its manifest as applications. */
  function listing(extra: string[]): RawEntry[] {
    return valid.map((entry) => {
      if (entry.name !== "manifest.json") return entry;
      const manifest = JSON.parse(entry.data.toString("utf8"));
      for (const guid of extra) {
        manifest.Objects.push({ Guid: guid, Type: "Application", Name: guid, File: `objects/${guid}.json` });
      }
      return { ...entry, data: Buffer.from(JSON.stringify(manifest)) };
    });
  }

  const padded = (ids: string[], padding: Deflated): RawEntry[] =>
    ids.map((guid) => ({ name: `objects/${guid}.json`, data: Buffer.alloc(0), precompressed: padding }));

  /** Uploads `bytes`; returns the answer and the names of the entries the emulator inflated. */
  async function refused(bytes: Buffer, status: number, key: string): Promise<string[]> {
    const spy = vi.spyOn(yauzl.ZipFile.prototype, "openReadStream");
    try {
      const response = await upload(raw(), token, fileOf(bytes));
      expect(response.status, response.text).toBe(status);
      expect(response.body.IsSuccessful).toBe(false);
      expect(response.body.ValidationMessages[0].MessageKey).toBe(key);
      return spy.mock.calls.map(([entry]) => (entry as { fileName: string }).fileName);
    } finally {
      spy.mockRestore();
    }
  }

  it("object files the manifest does not list are refused without inflating any object file", async () => {
    const bomb = rawZip([...valid, ...padded(guids, deflated(Buffer.alloc(8 * MiB, 0x20)))]);
    expect(bomb.length).toBeLessThan(100 * 1024);
    const inflated = await refused(bomb, 400, "UnexpectedEntry");
    expect(inflated).toEqual(["manifest.json"]);
  });

  it("an object file declared larger than the JSON limit is refused from the directory alone", async () => {
    // A zip bomb in small: entries of 60 MiB of spaces, which deflate about 1000:1.
    const sixty = deflated(Buffer.alloc(60 * MiB, 0x20));
    expect(await refused(rawZip([...valid, ...padded(guids, sixty)]), 400, "EntryTooLarge")).toEqual([]);
    expect(await refused(rawZip([...listing(guids), ...padded(guids, sixty)]), 400, "EntryTooLarge")).toEqual(
      [],
    );
  });

  it("listed object files that add up past the JSON limit are refused before any is inflated", async () => {
    const bomb = rawZip([...listing(more), ...padded(more, deflated(Buffer.alloc(6 * MiB, 0x20)))]);
    expect(await refused(bomb, 400, "JsonTooLarge")).toEqual(["manifest.json"]);
  });

  it("JSON whose objects and arrays pass the limit is refused before it is parsed", async () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      const objects = Buffer.from(`[${"{},".repeat(400_000)}{}]`);
      const bomb = rawZip([...listing(guids.slice(0, 1)), ...padded(guids.slice(0, 1), deflated(objects))]);
      await refused(bomb, 400, "JsonTooComplex");
      expect(parse.mock.calls.some(([text]) => String(text).startsWith("[{},"))).toBe(false);
    } finally {
      parse.mockRestore();
    }
  });

  it("a valid package is still accepted", async () => {
    const response = await upload(raw(), token, fileOf(rawZip(valid)));
    expect(response.status, response.text).toBe(200);
  });
});
