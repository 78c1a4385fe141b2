import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { createPackage, download, generateAndWait, upload } from "../helpers/packages.ts";
import { useEmulator } from "../helpers/raw.ts";
import { type RawEntry, rawZip, readZipEntries } from "../helpers/zip.ts";

/*
 * A package of several megabytes uploaded and downloaded again is the same file, byte for byte:
 * the emulator writes an upload with the client's file sink (which frees each request chunk once
 * it is on disk) and serves a download from a ring of reused buffers, and neither may lose,
 * reorder or overwrite a byte. The stored asset is not read by the emulator's checks, so only
 * this comparison would see a corrupted one.
 */

const work = mkdtempSync(join(tmpdir(), "egp-roundtrip-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a package upload and its download", () => {
  const { raw } = useEmulator({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } });
  let token = "";
  let entries: RawEntry[] = [];

  beforeAll(async () => {
    token = await raw().token();
    const id = await createPackage(raw(), token, {
      Name: "roundtrip",
      PackageObjects: [{ Guid: demoGuid("risks"), Type: "Application" }],
    });
    await generateAndWait(raw(), token, id);
    const file = join(work, "generated.zip");
    await download(raw(), token, id, file);
    entries = [...(await readZipEntries(file))].map(([name, data]) => ({ name, data, deflate: true }));
  });

  it("gives back the uploaded bytes exactly", async () => {
    const bytes = rawZip([
      ...entries,
      { name: "assets/evidence.bin", data: randomBytes(12 * 1024 * 1024 + 7) },
    ]);
    const sent = join(work, "sent.zip");
    writeFileSync(sent, bytes);
    const response = await upload(raw(), token, sent);
    expect(response.status, response.text).toBe(200);
    const back = join(work, "back.zip");
    const answer = await download(raw(), token, response.body.RequestedObject.Id, back);
    expect(answer.status, answer.text).toBe(200);
    const received = readFileSync(back);
    expect(received.length).toBe(bytes.length);
    expect(received.equals(bytes)).toBe(true);
  });
});
