import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inspectPackage } from "../../src/apply/artifacts.ts";
import { rawZip } from "../helpers/zip.ts";

/*
 * DESIGN §3: package files are opaque to egp, its own emulator's included. A file in the emulator's
 * layout whose manifest lists an object the zip lacks, or whose manifest is not JSON, is inspected as
 * any other zip: what it installs is checked on the target's metadata after the install.
 */

const dir = mkdtempSync(join(tmpdir(), "egp-opaque-package-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GUID = "11111111-2222-3333-4444-555555555555";
const EMULATOR_MANIFEST = "manifest.json";

function packageFile(name: string, manifest: string): string {
  const file = join(dir, name);
  writeFileSync(file, rawZip([{ name: EMULATOR_MANIFEST, data: Buffer.from(manifest) }]));
  return file;
}

describe("inspectPackage of a file in egp's emulator's layout", () => {
  it("opens none of its entries: a manifest listing a missing object, or no JSON at all, passes", async () => {
    const listed = JSON.stringify({
      FormatVersion: 1,
      Name: "P",
      Description: null,
      PreparedBy: null,
      SourceInstance: "Default",
      SourceRelease: "6.14.0",
      CreatedDate: "2026-01-01T00:00:00Z",
      Objects: [{ Guid: GUID, Type: "Application", Name: "A", File: `objects/${GUID}.json` }],
    });
    await expect(inspectPackage(packageFile("incomplete.zip", listed))).resolves.toBeUndefined();
    await expect(inspectPackage(packageFile("not-json.zip", "{nope"))).resolves.toBeUndefined();
  });
});

describe("the product outside the emulator", () => {
  it("reads no entry of a zip: only src/emulator/ inflates one", () => {
    const src = join(import.meta.dirname, "..", "..", "src");
    const reading = readdirSync(src, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.startsWith("emulator"))
      .filter((file) =>
        /\bopenReadStream\b|["'`]manifest\.json["'`]/.test(readFileSync(join(src, file), "utf8")),
      );
    expect(reading).toEqual([]);
  });
});
