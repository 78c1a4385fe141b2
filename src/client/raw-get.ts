import type { IncomingHttpHeaders } from "node:http";
import { isIP, type Socket, connect as tcpConnect } from "node:net";
import { type ConnectionOptions as TlsOptions, connect as tlsConnect } from "node:tls";

/*
 * One HTTP/1.1 GET on a connection of its own, whose body is handed over piece by piece from a
 * single reused read buffer: the package download's fast path (packages.ts), used with the
 * client's own connection settings only (never with an injected dispatcher, such as a proxy).
 *
 * Why not undici for this one request: undici reads the socket into a fresh 64 KiB buffer per read
 * and runs its parser, a body stream and their events for each one. For a 500 MB package that is
 * about 0.3 s of JavaScript and 25 MB of short-lived buffers, as much again as curl spends on the
 * whole download (bench/transfer.ts). Here the socket reads into one buffer (Node's `onread`), and
 * the only work per read is finding the body's bytes in it.
 *
 * What it handles: a status line and headers (1xx answers skipped), a body framed by
 * Content-Length, by chunked transfer coding or by the end of the connection; the connect, headers
 * and body-silence timeouts, with undici's error codes so that the caller classifies failures the
 * same way; TLS with the client's CA list and verification setting. A body the sink does not take
 * (an error answer, a JSON envelope) is collected, up to `collectLimit` bytes, for the caller to
 * read as usual.
 */

export interface RawGetOptions {
  url: string;
  headers: Record<string, string>;
  /** For https: trusted CAs (default: Node's) and whether to verify the certificate. */
  tls?: { ca?: string[]; rejectUnauthorized: boolean };
  connectMs: number;
  headersMs: number;
  bodyMs: number;
  /** Size of the reused read buffer; default 256 KiB. */
  readBytes?: number;
  /** Most bytes of a collected body; the rest is dropped. Default 1 MiB. */
  collectLimit?: number;
}

export interface RawGetSink {
  /** The answer's status and headers; true to take the body piece by piece, false to collect it. */
  onHead(status: number, headers: IncomingHttpHeaders): boolean;
  /**
   * A piece of the body, valid only during the call (the buffer is reused). A promise pauses the
   * reading until it settles (the piece must then have been copied).
   */
  onData(piece: Uint8Array): undefined | Promise<void>;
}

export interface RawGetResult {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** True when the body went to the sink; else `collected` holds it. */
  taken: boolean;
  collected: Buffer;
}

const READ_BYTES = 256 * 1024;
const COLLECT_LIMIT = 1024 * 1024;
const HEAD_LIMIT = 64 * 1024;

/** An error with one of undici's codes, so that connectionErrorOf treats it as it treats undici's. */
function failure(code: string, message: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

/** Marks an error thrown by the sink, so that it is passed on as it is. */
const SINK_ERROR = Symbol("sink error");

export function isSinkError(error: unknown): boolean {
  return typeof error === "object" && error !== null && SINK_ERROR in error;
}

function requestHead(url: URL, headers: Record<string, string>): string {
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, "connection: close"];
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) {
      throw failure("UND_ERR_INVALID_ARG", `invalid header ${JSON.stringify(name)}: a line break`);
    }
    lines.push(`${name}: ${value}`);
  }
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** Status and headers of a response head (without its final blank line). */
export function parseHead(text: string): { status: number; headers: IncomingHttpHeaders } {
  const [statusLine = "", ...lines] = text.split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!match)
    throw failure("UND_ERR_INVALID_RESPONSE", `not an HTTP/1.1 status line: ${statusLine.slice(0, 80)}`);
  const headers: IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw failure("UND_ERR_INVALID_RESPONSE", `not a header line: ${line.slice(0, 80)}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const seen = headers[name];
    if (name === "set-cookie") headers[name] = [...((seen as string[] | undefined) ?? []), value];
    else headers[name] = seen === undefined ? value : `${seen}, ${value}`;
  }
  return { status: Number(match[1]), headers };
}

type Framing = { kind: "length"; left: number } | { kind: "chunked" } | { kind: "close" } | { kind: "none" };

function framingOf(status: number, headers: IncomingHttpHeaders): Framing {
  if (status === 204 || status === 304) return { kind: "none" };
  const coding = String(headers["transfer-encoding"] ?? "").toLowerCase();
  if (coding.split(",").some((part) => part.trim() === "chunked")) return { kind: "chunked" };
  const length = headers["content-length"];
  if (length !== undefined) {
    if (!/^\d+$/.test(String(length))) {
      throw failure("UND_ERR_INVALID_RESPONSE", `invalid Content-Length: ${String(length).slice(0, 40)}`);
    }
    return { kind: "length", left: Number(length) };
  }
  return { kind: "close" };
}

/** Chunked transfer coding, decoded as the bytes arrive (sizes, data, CRLFs, trailers). */
class ChunkedDecoder {
  private state: "size" | "data" | "data-end" | "trailer" | "done" = "size";
  private line = "";
  private left = 0;

  get done(): boolean {
    return this.state === "done";
  }

  /** Calls `emit` with the data in `bytes`; returns how many bytes of `bytes` were used. */
  feed(bytes: Uint8Array, emit: (piece: Uint8Array) => void): number {
    let at = 0;
    while (at < bytes.length && this.state !== "done") {
      if (this.state === "data") {
        const take = Math.min(this.left, bytes.length - at);
        emit(bytes.subarray(at, at + take));
        at += take;
        this.left -= take;
        if (this.left === 0) this.state = "data-end";
        continue;
      }
      // A line: a chunk size, the CRLF after a chunk's data, or a trailer.
      const byte = bytes[at++] as number;
      if (byte !== 0x0a) {
        this.line += String.fromCharCode(byte);
        if (this.line.length > 1024) throw failure("UND_ERR_INVALID_RESPONSE", "chunked body: line too long");
        continue;
      }
      const line = this.line.replace(/\r$/, "");
      this.line = "";
      if (this.state === "size") {
        const size = /^([0-9a-fA-F]+)(?:;.*)?$/.exec(line.trim());
        if (!size)
          throw failure("UND_ERR_INVALID_RESPONSE", `chunked body: bad size line ${line.slice(0, 40)}`);
        this.left = Number.parseInt(size[1] as string, 16);
        this.state = this.left === 0 ? "trailer" : "data";
      } else if (this.state === "data-end") {
        if (line !== "")
          throw failure("UND_ERR_INVALID_RESPONSE", "chunked body: no line break after a chunk");
        this.state = "size";
      } else if (line === "") {
        this.state = "done";
      }
    }
    return at;
  }
}

/** Sends the GET and resolves once the whole body has gone to the sink or been collected. */
export function rawGet(options: RawGetOptions, sink: RawGetSink): Promise<RawGetResult> {
  const url = new URL(options.url);
  const head = requestHead(url, options.headers);
  const secure = url.protocol === "https:";
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = Number(url.port || (secure ? 443 : 80));
  const buffer = Buffer.allocUnsafe(options.readBytes ?? READ_BYTES);
  const collectLimit = options.collectLimit ?? COLLECT_LIMIT;

  return new Promise<RawGetResult>((resolve, reject) => {
    let settled = false;
    let phase: "connect" | "head" | "body" = "connect";
    let headBytes = Buffer.alloc(0);
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    let framing: Framing = { kind: "none" };
    let chunked: ChunkedDecoder | undefined;
    let taken = false;
    /** The body has all arrived (the sink may still be busy with its end). */
    let complete = false;
    /** The sink's work under way, while the socket is paused. */
    let pending: Promise<void> | undefined;
    const collected: Buffer[] = [];
    let collectedBytes = 0;

    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number, code: string, what: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => fail(failure(code, `${what} (${ms} ms)`)), ms);
    };

    // Node reads into `buffer` and calls back, instead of allocating a buffer per read.
    const onread = { buffer, callback: (length: number) => onRead(length) };
    const tlsOptions: TlsOptions & { onread: typeof onread } = {
      host,
      port,
      onread,
      ...(isIP(host) ? {} : { servername: host }),
      ...(options.tls?.ca ? { ca: options.tls.ca } : {}),
      rejectUnauthorized: options.tls?.rejectUnauthorized ?? true,
    };
    const socket: Socket = secure ? tlsConnect(tlsOptions) : tcpConnect({ host, port, onread });

    function finish() {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ statusCode: status, headers, taken, collected: Buffer.concat(collected) });
    }
    function fail(error: unknown) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    }
    const sinkFailed = (error: unknown) => fail(markSink(error));
    /** Finishes once the sink is done with what it has. */
    const finishAfterSink = () => {
      if (pending) pending.then(finish, sinkFailed);
      else finish();
    };

    /** One piece of the body: to the sink, or collected. */
    const deliver = (piece: Uint8Array): undefined | Promise<void> => {
      if (piece.length === 0) return undefined;
      if (taken) return sink.onData(piece);
      if (collectedBytes < collectLimit) {
        const kept = piece.subarray(0, collectLimit - collectedBytes);
        collected.push(Buffer.from(kept));
        collectedBytes += kept.length;
      }
      return undefined;
    };

    /** The body's pieces in one read, and whether the body ends with them. */
    const piecesOf = (bytes: Uint8Array): Uint8Array[] => {
      if (framing.kind === "length") {
        const piece = bytes.subarray(0, framing.left);
        framing.left -= piece.length;
        complete = framing.left === 0;
        return [piece];
      }
      if (framing.kind === "chunked") {
        const decoder = chunked as ChunkedDecoder;
        const pieces: Uint8Array[] = [];
        decoder.feed(bytes, (piece) => pieces.push(piece));
        complete = decoder.done;
        return pieces;
      }
      return framing.kind === "close" ? [bytes] : [];
    };

    /**
     * Hands the pieces over in order. When the sink asks to wait, the rest follow once it is
     * ready: they stay valid, since the socket reads nothing into the buffer while paused.
     */
    const handOver = (pieces: Uint8Array[]): undefined | Promise<void> => {
      let waiting: Promise<void> | undefined;
      for (const piece of pieces) {
        waiting = waiting ? waiting.then(() => deliver(piece)) : deliver(piece);
      }
      return waiting;
    };

    /** Handles one read; false pauses the socket until the sink is ready again. */
    function onRead(length: number): boolean {
      if (settled) return false;
      let bytes: Uint8Array = buffer.subarray(0, length);
      try {
        while (phase === "head" && bytes.length > 0) {
          const joined = Buffer.concat([headBytes, bytes]);
          const end = joined.indexOf("\r\n\r\n");
          if (end < 0) {
            if (joined.length > HEAD_LIMIT)
              throw failure("UND_ERR_HEADERS_OVERFLOW", "response head too large");
            headBytes = joined;
            return true;
          }
          const parsed = parseHead(joined.subarray(0, end).toString("latin1"));
          bytes = bytes.subarray(bytes.length - (joined.length - (end + 4)));
          headBytes = Buffer.alloc(0);
          if (parsed.status < 200) continue; // 100 Continue, 103 Early Hints: the answer follows
          status = parsed.status;
          headers = parsed.headers;
          framing = framingOf(status, headers);
          if (framing.kind === "chunked") chunked = new ChunkedDecoder();
          try {
            taken = sink.onHead(status, headers);
          } catch (error) {
            throw markSink(error);
          }
          phase = "body";
          arm(options.bodyMs, "UND_ERR_BODY_TIMEOUT", "no body bytes for too long");
          if (framing.kind === "none" || (framing.kind === "length" && framing.left === 0)) {
            finish();
            return false;
          }
        }
        if (phase !== "body" || bytes.length === 0) return true;
        timer?.refresh();
        let waiting: undefined | Promise<void>;
        try {
          waiting = handOver(piecesOf(bytes));
        } catch (error) {
          throw markSink(error);
        }
        if (complete) {
          pending = waiting;
          finishAfterSink();
          return false;
        }
        if (!waiting) return true;
        pending = waiting.then(() => {
          pending = undefined;
          if (!settled) socket.resume();
        }, sinkFailed);
        return false;
      } catch (error) {
        fail(error);
        return false;
      }
    }

    arm(options.connectMs, "UND_ERR_CONNECT_TIMEOUT", "connect timed out");
    socket.once(secure ? "secureConnect" : "connect", () => {
      phase = "head";
      arm(options.headersMs, "UND_ERR_HEADERS_TIMEOUT", "no answer head in time");
      socket.write(head);
    });
    socket.on("error", (error) => fail(error));
    socket.on("close", () => {
      if (settled) return;
      if (complete || (phase === "body" && framing.kind === "close")) return finishAfterSink();
      fail(failure("UND_ERR_SOCKET", "other side closed"));
    });
  });
}

function markSink(error: unknown): unknown {
  if (typeof error === "object" && error !== null) return Object.assign(error, { [SINK_ERROR]: true });
  return error;
}
