import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { afterAll, describe, expect, it } from "vitest";
import { ZipFile } from "yazl";
import { artifactPath, inspectPackage, store, verifiedArtifact } from "./artifacts.ts";

const dir = mkdtempSync(join(tmpdir(), "egp-artifacts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let count = 0;
async function zipOf(entries: Array<{ name: string; data?: string; mode?: number }>): Promise<string> {
  const file = join(dir, `p${++count}.zip`);
  const zip = new ZipFile();
  const written = pipeline(zip.outputStream, createWriteStream(file));
  for (const entry of entries) {
    zip.addBuffer(Buffer.from(entry.data ?? "x"), entry.name, entry.mode ? { mode: entry.mode } : {});
  }
  zip.end();
  await written;
  return file;
}

/** yazl refuses unsafe names: one is patched into the bytes, name for name of the same length. */
async function zipWithName(safe: string, unsafe: string): Promise<string> {
  const file = await zipOf([{ name: safe }]);
  const bytes = readFileSync(file);
  writeFileSync(file, Buffer.from(bytes.toString("latin1").replaceAll(safe, unsafe), "latin1"));
  return file;
}

describe("inspectPackage", () => {
  // A file in egp's emulator's own layout is judged the same way: test/apply/opaque-package.test.ts.
  it("passes a zip of any layout: no entry is opened by name", async () => {
    const opaque = await zipOf([
      { name: "PackageInfo/Header.xml", data: "<Package/>" },
      { name: "Items/0001.dat", data: "opaque" },
    ]);
    await expect(inspectPackage(opaque)).resolves.toBeUndefined();
  });

  it("refuses what no zip may hold, whatever its layout", async () => {
    const climbing = await zipWithName("Items/XX/XX/evil.dat", "Items/../../evil.dat");
    await expect(inspectPackage(climbing)).rejects.toThrow(/climbs out of the folder|invalid relative path/);
    const absolute = await zipWithName("Xetc/passwd", "/etc/passwd");
    await expect(inspectPackage(absolute)).rejects.toThrow(/absolute/);
    const linked = await zipOf([{ name: "Items/link", data: "/etc/passwd", mode: 0o120777 }]);
    await expect(inspectPackage(linked)).rejects.toThrow("a symbolic link entry: Items/link");
    const many = await zipOf([{ name: "a" }, { name: "b" }, { name: "c" }]);
    await expect(inspectPackage(many, { maxEntries: 2, maxExpandedBytes: 1e6 })).rejects.toThrow(
      "more than 2 entries",
    );
    const large = await zipOf([{ name: "a", data: "y".repeat(2000) }]);
    await expect(inspectPackage(large, { maxEntries: 10, maxExpandedBytes: 1000 })).rejects.toThrow(
      "more than 1000 bytes once expanded",
    );
    const notZip = join(dir, "not.zip");
    writeFileSync(notZip, "<html>404</html>");
    await expect(inspectPackage(notZip)).rejects.toThrow(/not a zip file/);
  });
});

describe("kept artifacts", () => {
  it("are found by digest only after their bytes are checked against it; a digest is never a path", async () => {
    const stateDir = mkdtempSync(join(dir, "state-"));
    const file = await zipOf([{ name: "a", data: "kept" }]);
    const digest = await store(stateDir, file);
    await expect(verifiedArtifact(stateDir, digest)).resolves.toBe(artifactPath(stateDir, digest));
    writeFileSync(artifactPath(stateDir, digest), "other bytes");
    await expect(verifiedArtifact(stateDir, digest)).rejects.toThrow(/its content changed since it was kept/);
    expect(() => artifactPath(stateDir, "../../../tmp/x")).toThrow("not a sha256 digest");
    await expect(verifiedArtifact(stateDir, "0".repeat(64))).rejects.toThrow("the file is gone");
  });
});
