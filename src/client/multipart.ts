import { randomBytes } from "node:crypto";
import type { Chunks } from "./file-source.ts";

/*
 * A multipart/form-data body that streams its file parts: nothing is read into memory, and the
 * length is known in advance (so the request carries Content-Length, which servers and proxies
 * prefer to chunked uploads). A body can be opened again, for the one retry after a re-login.
 */

export type Part =
  | { name: string; value: string }
  | { name: string; fileName: string; contentType: string; size: number; open: () => Chunks };

export interface MultipartBody {
  contentType: string;
  length: number;
  /** An async iterable, not a stream: undici then pulls a chunk only when the socket took the last. */
  open(): Chunks;
}

const CRLF = "\r\n";

// As browsers do (WHATWG): quotes and line breaks in names are percent-encoded.
function quoted(text: string): string {
  return `"${text.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;
}

function headerOf(boundary: string, part: Part): Buffer {
  const lines = [`--${boundary}`];
  if ("value" in part) {
    lines.push(`Content-Disposition: form-data; name=${quoted(part.name)}`);
  } else {
    lines.push(
      `Content-Disposition: form-data; name=${quoted(part.name)}; filename=${quoted(part.fileName)}`,
    );
    lines.push(`Content-Type: ${part.contentType}`);
  }
  return Buffer.from(lines.join(CRLF) + CRLF + CRLF, "utf8");
}

export function multipartBody(parts: Part[]): MultipartBody {
  const boundary = `----egp${randomBytes(12).toString("hex")}`;
  const headers = parts.map((part) => headerOf(boundary, part));
  const values = parts.map((part) => ("value" in part ? Buffer.from(part.value, "utf8") : undefined));
  const trailer = Buffer.from(`--${boundary}--${CRLF}`, "utf8");
  let length = trailer.length;
  parts.forEach((part, index) => {
    const size = "value" in part ? (values[index] as Buffer).length : part.size;
    length += (headers[index] as Buffer).length + size + CRLF.length;
  });

  async function* chunks(): AsyncGenerator<Buffer> {
    for (const [index, part] of parts.entries()) {
      yield headers[index] as Buffer;
      if ("value" in part) yield values[index] as Buffer;
      else yield* part.open();
      yield Buffer.from(CRLF);
    }
    yield trailer;
  }

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length,
    open: chunks,
  };
}
