import { randomBytes } from "node:crypto";
import type { FormData } from "undici";
import type { Chunks, FileSource } from "./file-source.ts";
import { formDataClass } from "./undici.ts";

/*
 * A multipart/form-data body. A file part that is a Blob (a path's is file-backed) goes into
 * undici's FormData: undici encodes the form at each send, reading the file as the socket takes
 * it, with a Content-Length, so the one retry after a re-login sends it again. Bytes still arriving
 * (a download teed into the upload) can't be a Blob: for those alone the form is framed here, as
 * undici frames it, with a length known from the download's, or with none (undici then sends the
 * body chunked) when the download has none.
 */

export type Part = { name: string; value: string } | { name: string; contentType: string; file: FileSource };

/** One send's body, the headers it needs (undici sets a FormData's own), and what counts its bytes. */
export interface MultipartSend {
  headers: Record<string, string>;
  body: FormData | Chunks;
  /** Told of each piece of the body written to the socket, for a Blob's progress. */
  onBodySent?: (bytes: number) => void;
}

export interface MultipartBody {
  /** Opened once per send: the retry after a re-login opens it again. */
  open(): MultipartSend;
}

export function multipartBody(parts: readonly Part[]): MultipartBody {
  const streamed = parts.some((part) => "file" in part && "open" in part.file);
  return { open: () => (streamed ? framed(parts) : formOf(parts)) };
}

function formOf(parts: readonly Part[]): MultipartSend {
  const form = new (formDataClass())();
  let counted: Extract<FileSource, { blob: Blob }> | undefined;
  for (const part of parts) {
    if ("value" in part) form.append(part.name, part.value);
    else if ("blob" in part.file) {
      const { blob, fileName } = part.file;
      // The part's type is the Blob's: a slice carries it, still backed by the same file.
      form.append(part.name, blob.slice(0, blob.size, part.contentType), fileName);
      counted = part.file;
    }
  }
  const send: MultipartSend = { headers: {}, body: form };
  const report = counted?.onProgress;
  if (!counted || !report) return send;
  // The socket sees the form, not the file: its framing (a few hundred bytes) counts as the file's.
  const total = counted.size;
  let sent = 0;
  let told = -1;
  send.onBodySent = (bytes) => {
    sent += bytes;
    const counted = Math.min(sent, total);
    if (counted === told) return;
    told = counted;
    report({ bytes: counted, total });
  };
  return send;
}

const CRLF = "\r\n";

// As browsers and undici do (WHATWG): quotes and line breaks in names are percent-encoded.
function quoted(text: string): string {
  return `"${text.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;
}

function headerOf(boundary: string, part: Part): Buffer {
  const lines = [`--${boundary}`];
  if ("value" in part) lines.push(`Content-Disposition: form-data; name=${quoted(part.name)}`);
  else {
    const { fileName } = part.file;
    lines.push(`Content-Disposition: form-data; name=${quoted(part.name)}; filename=${quoted(fileName)}`);
    lines.push(`Content-Type: ${part.contentType}`);
  }
  return Buffer.from(lines.join(CRLF) + CRLF + CRLF, "utf8");
}

async function* fileChunks(file: FileSource): Chunks {
  if ("open" in file) yield* file.open();
  else for await (const chunk of file.blob.stream()) yield Buffer.from(chunk);
}

function framed(parts: readonly Part[]): MultipartSend {
  const boundary = `----egp${randomBytes(12).toString("hex")}`;
  const headers = parts.map((part) => headerOf(boundary, part));
  const values = parts.map((part) => Buffer.from("value" in part ? part.value : "", "utf8"));
  const trailer = Buffer.from(`--${boundary}--${CRLF}`, "utf8");
  let length: number | undefined = trailer.length;
  parts.forEach((part, index) => {
    const size = "value" in part ? (values[index] as Buffer).length : part.file.size;
    if (length === undefined || size === undefined) length = undefined;
    else length += (headers[index] as Buffer).length + size + CRLF.length;
  });

  async function* chunks(): Chunks {
    for (const [index, part] of parts.entries()) {
      yield headers[index] as Buffer;
      if ("value" in part) yield values[index] as Buffer;
      else yield* fileChunks(part.file);
      yield Buffer.from(CRLF);
    }
    yield trailer;
  }

  return {
    headers: {
      "content-type": `multipart/form-data; boundary=${boundary}`,
      ...(length === undefined ? {} : { "content-length": String(length) }),
    },
    body: chunks(),
  };
}
