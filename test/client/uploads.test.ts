import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, TransferError } from "../../src/index.ts";
import { optionsFor } from "./helpers/client.ts";
import { envelope, type Recorded, useRecorder } from "./helpers/recorder.ts";

/*
 * Uploads as the server receives them: framing and Content-Length, quoted names, progress, the one
 * retry after a re-login (the file is read again), and the sources an upload refuses.
 */

const work = mkdtempSync(join(tmpdir(), "egp-uploads-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const data = randomBytes(1_300_001);
const path = join(work, "package.zip");
writeFileSync(path, data);

async function formOf(request: Recorded): Promise<FormData> {
  const type = String(request.headers["content-type"]);
  return new Response(request.body, { headers: { "content-type": type } }).formData();
}

describe("uploads", () => {
  const { recorder, answer } = useRecorder();
  const client = () => createClient(optionsFor(recorder().url));
  const uploads = () =>
    recorder()
      .calls()
      .filter((r) => r.path.endsWith("/core/package/upload"));

  it("send a file with its length up front, every byte in order, and report progress up to its size", async () => {
    answer(() => ({ body: envelope({ Id: 31 }) }));
    const progress: Array<{ bytes: number; total: number | undefined }> = [];
    await expect(client().packages.upload(path, { onProgress: (p) => progress.push(p) })).resolves.toBe(31);
    const sent = uploads().at(-1) as Recorded;
    expect(sent.headers["transfer-encoding"]).toBeUndefined();
    expect(sent.headers["content-length"]).toBe(String(sent.body.length));
    const part = (await formOf(sent)).get("file") as File;
    expect(part.name).toBe("package.zip");
    expect(part.type).toBe("application/zip");
    expect(Buffer.from(await part.arrayBuffer()).equals(data)).toBe(true);
    expect(progress.at(-1)).toEqual({ bytes: data.length, total: data.length });
  });

  it("escape quotes and line breaks in names as browsers do", async () => {
    answer(() => ({ body: envelope({ Id: 32 }) }));
    await client().attachments.postMultipart({
      name: 'Quarterly "report"\r\n',
      file: new Uint8Array([1, 2, 3]),
      fileName: 'a"b.pdf',
    });
    const sent = recorder().calls().at(-1) as Recorded;
    expect(sent.body.toString("latin1")).toContain('filename="a%22b.pdf"');
    const form = await formOf(sent);
    expect(form.get("AttachmentName")).toBe('Quarterly "report"\r\n');
  });

  it("send the file again, whole, on the one retry after a re-login", async () => {
    let refused = 0;
    answer((request) => {
      if (!request.path.endsWith("/core/package/upload")) return undefined;
      if (refused++ === 0) return { status: 401, body: { IsSuccessful: false, RequestedObject: {} } };
      return { body: envelope({ Id: 33 }) };
    });
    const before = uploads().length;
    await expect(client().packages.upload(path)).resolves.toBe(33);
    const tries = uploads().slice(before);
    expect(tries).toHaveLength(2);
    for (const sent of tries) {
      const part = (await formOf(sent)).get("file") as File;
      expect(Buffer.from(await part.arrayBuffer()).equals(data)).toBe(true);
    }
  });

  it("refuse a missing file, or a folder, with a TransferError naming it", async () => {
    await expect(client().packages.upload(join(work, "missing.zip"))).rejects.toThrow(TransferError);
    await expect(client().packages.upload(join(work, "missing.zip"))).rejects.toThrow(
      /cannot upload .*missing\.zip/,
    );
    await expect(client().packages.upload(work)).rejects.toThrow(/not a regular file/);
  });
});
