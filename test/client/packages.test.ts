import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import {
  type PackageInstallRequest,
  type PlatformClient,
  TransferError,
  ValidationError,
} from "../../src/index.ts";
import { until } from "../helpers/packages.ts";
import { generatedPackage, useClientEmulator } from "./helpers/client.ts";

/*
 * The five package calls, demo-dev → demo-prod: create, generate, download (to a path and to a
 * stream, with progress), upload (streamed, with progress), install.
 */

const work = mkdtempSync(join(tmpdir(), "egp-client-packages-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const FINDINGS = [
  { Guid: demoGuid("comments"), Type: "SubForm" as const },
  { Guid: demoGuid("controls"), Type: "Application" as const },
  { Guid: demoGuid("risks"), Type: "Application" as const },
  { Guid: demoGuid("findings"), Type: "Application" as const },
];

function generated(client: PlatformClient): Promise<number> {
  return generatedPackage(client, {
    Description: "Findings and what it needs",
    PreparedBy: "client test",
    PackageObjects: FINDINGS,
  });
}

describe("packages", () => {
  const fast = { jobs: { generateMs: 30, installMs: 60 } };
  const dev = useClientEmulator({ seed: "demo-dev", ...fast });
  const prod = useClientEmulator({ seed: "demo-prod", ...fast });

  it("create → generate → download → upload → install promotes Findings to prod", async () => {
    const source = dev.client();
    const target = prod.client();
    const id = await generated(source);
    expect(source.paths().apiCore).toBe("/api");

    const file = join(work, "findings.zip");
    const seen: number[] = [];
    const { bytes } = await source.packages.download(id, file, { onProgress: (p) => seen.push(p.bytes) });
    expect(bytes).toBe(statSync(file).size);
    expect(seen.at(-1)).toBe(bytes);
    expect(readFileSync(file).subarray(0, 2).toString()).toBe("PK");

    const sent: number[] = [];
    const targetId = await target.packages.upload(file, { onProgress: (p) => sent.push(p.bytes) });
    expect(sent.at(-1)).toBe(bytes);
    const uploaded = await target.packages.get(targetId);
    expect(uploaded).toMatchObject({ Origin: "Uploaded", Status: "Ready", Size: bytes });

    const install: PackageInstallRequest = {
      PackageId: targetId,
      InactivateUnusedFields: false,
      PrefixInactivatedFields: null,
      InstallOptions: FINDINGS.map((o) => ({
        Guid: o.Guid,
        Name: o.Guid,
        Type: o.Type,
        TranslationOption: 1,
        InstallMethod: 2,
        InstallOption: 2,
      })),
    };
    await target.packages.install(install);
    const job = await until(
      async () => {
        const [last] = (await target.packages.get(targetId)).Installs;
        return last && (last.Status === "Succeeded" || last.Status === "Failed") ? last : undefined;
      },
      "install",
      6_000,
    );
    expect(job.Status).toBe("Succeeded");
    const apps = await target.metadata.applications();
    expect(apps.map((app) => app.Guid)).toContain(demoGuid("findings"));
    expect((await target.packages.list()).map((p) => p.Id)).toContain(targetId);
  });

  it("download streams into a writable stream too", async () => {
    const source = dev.client();
    const id = await generated(source);
    let received = 0;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done();
      },
    });
    const { bytes } = await source.packages.download(id, sink);
    expect(bytes).toBeGreaterThan(0);
    expect(received).toBe(bytes);
  });

  it("download before generation has finished is a ValidationError and leaves no file", async () => {
    const source = dev.client();
    const id = await source.packages.create({
      Name: "Not generated",
      Description: "",
      PreparedBy: "",
      PackageObjects: FINDINGS.slice(0, 1),
    });
    const file = join(work, "never.zip");
    const failure = source.packages.download(id, file);
    await expect(failure).rejects.toThrow(ValidationError);
    await expect(failure).rejects.toMatchObject({ status: 409 });
    expect(() => statSync(file)).toThrow();
    expect(() => statSync(`${file}.part`)).toThrow();
  });

  it("create with an unknown GUID is a ValidationError naming it", async () => {
    const failure = dev.client().packages.create({
      Name: "Broken",
      Description: "",
      PreparedBy: "",
      PackageObjects: [{ Guid: "00000000-0000-0000-0000-000000000000", Type: "Application" }],
    });
    await expect(failure).rejects.toThrow(ValidationError);
    await expect(failure).rejects.toThrow(/00000000-0000-0000-0000-000000000000/);
  });

  it("upload of a missing file is a TransferError, and nothing is sent", async () => {
    const target = prod.client();
    await expect(target.packages.upload(join(work, "missing.zip"))).rejects.toThrow(TransferError);
    expect(target.stats().requests).toBe(0);
  });

  it("an upload met by a session expiry logs in again and sends the whole file from disk once more", async () => {
    const source = dev.client();
    const file = join(work, "expired.zip");
    const { bytes } = await source.packages.download(await generated(source), file);
    const target = prod.client();
    await target.metadata.version();
    prod
      .emulator()
      .faults.script({ method: "POST", path: "/package/upload", action: { expireSessions: true } });
    const sent: number[] = [];
    const id = await target.packages.upload(file, { onProgress: (p) => sent.push(p.bytes) });
    expect(target.stats().logins).toBe(2);
    expect(
      Object.entries(target.stats().byRoute).filter(([route]) => route.endsWith("/package/upload")),
    ).toEqual([[expect.any(String), 2]]);
    expect(sent.at(-1)).toBe(bytes);
    expect(await target.packages.get(id)).toMatchObject({ Origin: "Uploaded", Status: "Ready", Size: bytes });
  });

  it("upload of something that is not a package is refused by the instance", async () => {
    const failure = prod.client().packages.upload(new Uint8Array([1, 2, 3, 4]), { fileName: "junk.zip" });
    await expect(failure).rejects.toThrow(ValidationError);
  });
});
