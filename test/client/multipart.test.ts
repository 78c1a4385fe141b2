import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Response } from "undici";
import { describe, expect, it } from "vitest";
import { fileSourceOf } from "../../src/client/file-source.ts";
import { multipartBody } from "../../src/client/multipart.ts";

const dir = mkdtempSync(join(tmpdir(), "egp-multipart-"));
const path = join(dir, "report.pdf");
writeFileSync(path, "%PDF-1.7 fake bytes");

/** A body as the server would parse it: undici's own encoding for a FormData, the bytes for the rest. */
async function parsed(send: ReturnType<ReturnType<typeof multipartBody>["open"]>) {
  const response = new Response(send.body as ConstructorParameters<typeof Response>[0]);
  const bytes = Buffer.from(await response.arrayBuffer());
  const type = send.headers["content-type"] ?? (response.headers.get("content-type") as string);
  return { bytes, form: await new Response(bytes, { headers: { "content-type": type } }).formData() };
}

describe("multipart bodies", () => {
  it("put a file path's bytes in undici's FormData as a file-backed Blob, with the part's name and type", async () => {
    const file = await fileSourceOf(path, undefined);
    expect("blob" in file).toBe(true);
    const send = multipartBody([
      { name: "AttachmentName", value: 'Quarterly "report"' },
      { name: "AttachmentBytes", contentType: "application/pdf", file },
    ]).open();
    expect(send.headers).toEqual({});
    const { form } = await parsed(send);
    expect(form.get("AttachmentName")).toBe('Quarterly "report"');
    const part = form.get("AttachmentBytes") as File;
    expect(part.name).toBe("report.pdf");
    expect(part.type).toBe("application/pdf");
    expect(await part.text()).toBe("%PDF-1.7 fake bytes");
  });

  it("frame bytes still arriving with a length known in advance, parsed back as form data", async () => {
    const progress: number[] = [];
    const chunks = async function* () {
      yield Buffer.from("PK");
      yield Buffer.from("\u0003\u0004 rest");
    };
    const file = await fileSourceOf({ size: 9, chunks }, "a.zip", (p) => progress.push(p.bytes));
    const send = multipartBody([{ name: "file", contentType: "application/zip", file }]).open();
    const { bytes, form } = await parsed(send);
    expect(bytes.length).toBe(Number(send.headers["content-length"]));
    const part = form.get("file") as File;
    expect(part.name).toBe("a.zip");
    expect(await part.text()).toBe("PK\u0003\u0004 rest");
    expect(progress).toEqual([2, 9]);
  });

  it("open a FormData body again, for a retry after a re-login", async () => {
    const file = await fileSourceOf(new Uint8Array([1, 2, 3]), "a.zip");
    const body = multipartBody([{ name: "file", contentType: "application/zip", file }]);
    const first = await parsed(body.open());
    const second = await parsed(body.open());
    expect(await (second.form.get("file") as File).bytes()).toEqual(
      await (first.form.get("file") as File).bytes(),
    );
  });

  it("refuse a missing file with a clear error", async () => {
    await expect(fileSourceOf("/nonexistent/package.zip", undefined)).rejects.toThrow(
      /cannot upload \/nonexistent\/package\.zip/,
    );
  });
});
