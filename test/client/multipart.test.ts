import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { fileSourceOf } from "../../src/client/file-source.ts";
import { multipartBody } from "../../src/client/multipart.ts";

describe("multipart bodies", () => {
  it("stream a file part with a length known in advance, and parse back as form data", async () => {
    const dir = mkdtempSync(join(tmpdir(), "egp-multipart-"));
    const path = join(dir, "report.pdf");
    writeFileSync(path, "%PDF-1.7 fake bytes");
    const progress: number[] = [];
    const file = fileSourceOf(path, undefined, (p) => progress.push(p.bytes));
    const body = multipartBody([
      { name: "AttachmentName", value: 'Quarterly "report"' },
      {
        name: "AttachmentBytes",
        fileName: file.fileName,
        contentType: "application/pdf",
        size: file.size,
        open: file.open,
      },
    ]);
    const bytes = Buffer.from(await text(body.open()), "utf8");
    expect(bytes.length).toBe(body.length);
    const form = await new Response(bytes, { headers: { "content-type": body.contentType } }).formData();
    expect(form.get("AttachmentName")).toBe('Quarterly "report"');
    const part = form.get("AttachmentBytes") as File;
    expect(part.name).toBe("report.pdf");
    expect(part.type).toBe("application/pdf");
    expect(await part.text()).toBe("%PDF-1.7 fake bytes");
    expect(progress.at(-1)).toBe(19);
  });

  it("can be opened again, for a retry after a re-login", async () => {
    const body = multipartBody([
      {
        name: "file",
        fileName: "a.zip",
        contentType: "application/zip",
        size: 3,
        open: fileSourceOf(new Uint8Array([1, 2, 3]), "a.zip").open,
      },
    ]);
    const first = await text(body.open());
    const second = await text(body.open());
    expect(second).toBe(first);
  });

  it("refuses a missing file with a clear error", () => {
    expect(() => fileSourceOf("/nonexistent/package.zip", undefined)).toThrow(
      /cannot upload \/nonexistent\/package\.zip/,
    );
  });
});
