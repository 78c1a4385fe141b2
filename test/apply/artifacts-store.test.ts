import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { artifactPath, artifactsDir, store } from "../../src/apply/artifacts.ts";

// Counts the files read back, to tell a digest computed on the way from one computed again.
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return { ...actual, createReadStream: vi.fn(actual.createReadStream) };
});

const work = mkdtempSync(join(tmpdir(), "egp-artifacts-store-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const bytes = Buffer.from("PK\u0003\u0004 a package's bytes");
const digest = createHash("sha256").update(bytes).digest("hex");

describe("store (the artifact cache)", () => {
  beforeEach(() => {
    vi.mocked(fs.createReadStream).mockClear();
    fs.mkdirSync(artifactsDir(work), { recursive: true });
  });

  it("keeps a download under the digest computed on the way, without reading the file again", async () => {
    const downloaded = join(work, "download-a.zip");
    writeFileSync(downloaded, bytes);
    expect(await store(work, downloaded, digest)).toBe(digest);
    expect(readFileSync(artifactPath(work, digest)).equals(bytes)).toBe(true);
    expect(fs.createReadStream).not.toHaveBeenCalled();
  });

  it("without a digest, reads the file to compute it", async () => {
    const downloaded = join(work, "download-b.zip");
    writeFileSync(downloaded, bytes);
    expect(await store(work, downloaded)).toBe(digest);
    expect(fs.createReadStream).toHaveBeenCalledWith(downloaded);
  });
});
