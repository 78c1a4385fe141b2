import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { FileBodySink } from "../../src/client/file-body-sink.ts";
import { BufferRuns, dropFront, releaseAll, writeAll, writeBodyToFile } from "../../src/io/file-sink.ts";
import { InlineIo } from "../../src/io/inline-io.ts";

/*
 * The download sink: every byte lands in order whatever the chunking, writes leave the main thread
 * after repeated slow ones, and only chunks that own their whole buffer are released.
 */

const work = mkdtempSync(join(tmpdir(), "egp-file-sink-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `bytes` cut into chunks of irregular sizes, each a copy with a buffer of its own. */
function chunked(bytes: Buffer, sizes: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length] as number;
    chunks.push(new Uint8Array(bytes.subarray(at, at + size)));
    at += size;
  }
  return chunks;
}

/** A readable stream of the chunks as they are (object mode: no copies, no merging). */
function bodyOf(chunks: Uint8Array[]): Readable {
  return Readable.from(chunks);
}

describe("writeBodyToFile", () => {
  const data = randomBytes(1_000_003);
  const sizes = [1, 65_536, 7, 0, 300_001, 12_345, 99_999];

  it("writes every byte in order across runs of chunks, reporting progress after each run", async () => {
    const path = join(work, "ordered.bin");
    const seen: number[] = [];
    const result = await writeBodyToFile(bodyOf(chunked(data, sizes)), path, {
      batchBytes: 64 * 1024,
      onWritten: (bytes) => seen.push(bytes),
    });
    expect(result.bytes).toBe(data.length);
    expect(readFileSync(path).equals(data)).toBe(true);
    expect(seen.at(-1)).toBe(data.length);
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.every((bytes, i) => i === 0 || bytes > (seen[i - 1] as number))).toBe(true);
  });

  it("truncates a file that is already there", async () => {
    const path = join(work, "again.bin");
    await writeBodyToFile(bodyOf([new Uint8Array(data)]), path);
    const short = data.subarray(0, 10);
    await writeBodyToFile(bodyOf([new Uint8Array(short)]), path);
    expect(readFileSync(path).equals(short)).toBe(true);
  });

  it("keeps writing on the main thread while writes are fast", async () => {
    const path = join(work, "inline.bin");
    const result = await writeBodyToFile(bodyOf(chunked(data, sizes)), path, {
      batchBytes: 64 * 1024,
      io: { slowMs: Number.POSITIVE_INFINITY },
    });
    expect(result.writes.pooled).toBe(0);
    expect(result.writes.inline).toBeGreaterThan(5);
  });

  it("moves the rest of the writes to the thread pool after `strikes` slow ones", async () => {
    const path = join(work, "pooled.bin");
    // Every write takes at least 0 ms, so each one counts as slow.
    const result = await writeBodyToFile(bodyOf(chunked(data, sizes)), path, {
      batchBytes: 64 * 1024,
      io: { slowMs: 0, strikes: 2 },
    });
    expect(result.writes.inline).toBe(2);
    expect(result.writes.pooled).toBeGreaterThan(3);
    expect(readFileSync(path).equals(data)).toBe(true);
  });

  it("with `release`, frees the chunks that own their buffer once they are on disk", async () => {
    const path = join(work, "released.bin");
    const owned = new Uint8Array(data.subarray(0, 1000));
    const shared = new Uint8Array(data.buffer, data.byteOffset + 1000, 1000);
    await writeBodyToFile(bodyOf([owned, shared]), path, { release: true });
    expect(readFileSync(path).equals(data.subarray(0, 2000))).toBe(true);
    expect(owned.buffer.detached).toBe(true);
    expect(owned.byteLength).toBe(0);
    // A view into a larger buffer may share it with bytes someone else still reads.
    expect(shared.buffer.detached).toBe(false);
    expect(Buffer.from(shared).equals(data.subarray(1000, 2000))).toBe(true);
  });

  it("without `release`, leaves every chunk as it was", async () => {
    const owned = new Uint8Array(data.subarray(0, 1000));
    await writeBodyToFile(bodyOf([owned]), join(work, "kept.bin"));
    expect(owned.buffer.detached).toBe(false);
    expect(Buffer.from(owned).equals(data.subarray(0, 1000))).toBe(true);
  });

  it("rejects with the body's error when the body fails midway", async () => {
    async function* failing() {
      yield new Uint8Array(data.subarray(0, 5000));
      throw Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    }
    await expect(writeBodyToFile(Readable.from(failing()), join(work, "cut.bin"))).rejects.toMatchObject({
      code: "UND_ERR_SOCKET",
    });
  });

  it("a body that fails while the file is being opened rejects with the body's error, unhandled by no one", async () => {
    const body = new Readable({ read() {} });
    const failure = writeBodyToFile(body, join(work, "cut-early.bin"));
    // Synchronously, before open() can have answered: the sink must already be listening.
    body.destroy(Object.assign(new Error("reset"), { code: "ECONNRESET" }));
    await expect(failure).rejects.toMatchObject({ code: "ECONNRESET" });
  });

  it("a body that fails while a write is in the thread pool rejects with the body's error", async () => {
    const body = new Readable({ read() {} });
    const failure = writeBodyToFile(body, join(work, "cut-pooled.bin"), {
      batchBytes: 1000,
      io: { slowMs: 0, strikes: 0 },
    });
    body.push(new Uint8Array(data.subarray(0, 4000)));
    setImmediate(() => body.destroy(Object.assign(new Error("reset"), { code: "ECONNRESET" })));
    await expect(failure).rejects.toMatchObject({ code: "ECONNRESET" });
  });

  for (const strikes of [3, 0]) {
    const where = strikes === 0 ? "in the thread pool" : "on the main thread";
    it.skipIf(!existsSync("/dev/full"))(
      `a write that fails ${where} rejects and destroys the body`,
      async () => {
        const body = bodyOf(chunked(data, sizes));
        const failure = writeBodyToFile(body, "/dev/full", { io: { strikes } });
        await expect(failure).rejects.toMatchObject({ code: "ENOSPC" });
        expect(body.destroyed).toBe(true);
      },
    );
  }

  it("rejects with the file system's error when the file cannot be created", async () => {
    const path = join(work, "no-such-folder", "file.bin");
    await expect(writeBodyToFile(bodyOf([new Uint8Array(4)]), path)).rejects.toMatchObject({
      code: "ENOENT",
    });
    expect(existsSync(path)).toBe(false);
  });
});

describe("FileBodySink (the download's sink)", () => {
  const data = randomBytes(700_001);
  const pieces = (bytes: Buffer) => chunked(bytes, [262_144, 1, 100_000]);

  /** Feeds the pieces the way the transport does: one at a time, waiting when the sink asks to. */
  async function feed(sink: FileBodySink, list: Uint8Array[]): Promise<void> {
    for (const piece of list) {
      const waiting = sink.onData(Buffer.from(piece));
      if (waiting) await waiting;
    }
  }

  it("takes a successful answer that is not JSON, and writes every byte", async () => {
    const path = join(work, "raw.bin");
    const seen: number[] = [];
    const sink = new FileBodySink(path, { onWritten: (bytes) => seen.push(bytes) });
    expect(
      sink.onHead(200, { "content-type": "application/zip", "content-length": String(data.length) }),
    ).toBe(true);
    expect(sink.total).toBe(data.length);
    await feed(sink, pieces(data));
    sink.close();
    expect(readFileSync(path).equals(data)).toBe(true);
    expect(sink.written).toBe(data.length);
    expect(seen.at(-1)).toBe(data.length);
  });

  it("with `release`, frees a chunk that is a whole buffer once it is on disk, and only then", async () => {
    const path = join(work, "raw-released.bin");
    const sink = new FileBodySink(path, { release: true });
    sink.onHead(200, {});
    const owned = Buffer.from(new Uint8Array(data.subarray(0, 1000)).buffer);
    const view = Buffer.from(data.buffer, data.byteOffset + 1000, 1000);
    await sink.onData(owned);
    await sink.onData(view);
    sink.close();
    expect(readFileSync(path).equals(data.subarray(0, 2000))).toBe(true);
    expect(owned.buffer.detached).toBe(true);
    expect(view.buffer.detached).toBe(false);
    const kept = Buffer.from(new ArrayBuffer(10));
    const keeping = new FileBodySink(join(work, "raw-kept.bin"));
    keeping.onHead(200, {});
    await keeping.onData(kept);
    keeping.close();
    expect(kept.buffer.detached).toBe(false);
  });

  it("with `release`, frees a chunked answer's socket reads, cut by its framing, once on disk", async () => {
    const path = join(work, "raw-chunked.bin");
    const sink = new FileBodySink(path, { release: true });
    sink.onHead(200, { "transfer-encoding": "chunked" });
    const reads = [0, 1, 2].map(() => Buffer.alloc(1000));
    reads.forEach((socket, index) => {
      data.copy(socket, 0, index * 990, index * 990 + 500);
      socket.write("\r\n3e8\r\n", 500, "latin1");
      data.copy(socket, 510, index * 990 + 500, index * 990 + 990);
    });
    // Handed over as they are, each written before the next.
    for (const socket of reads) {
      await sink.onData(socket.subarray(0, 500));
      await sink.onData(socket.subarray(510));
    }
    expect(reads[0]?.buffer.detached).toBe(true);
    expect(reads[1]?.buffer.detached).toBe(true);
    expect(reads[2]?.buffer.detached).toBe(false);
    sink.close();
    expect(reads[2]?.buffer.detached).toBe(true);
    expect(readFileSync(path).equals(data.subarray(0, 2970))).toBe(true);
  });

  it("leaves error answers and JSON envelopes to the caller, and opens nothing for them", () => {
    const path = join(work, "never-opened.bin");
    const sink = new FileBodySink(path);
    expect(sink.onHead(404, { "content-type": "application/zip" })).toBe(false);
    expect(sink.onHead(200, { "content-type": "application/json; charset=utf-8" })).toBe(false);
    expect(existsSync(path)).toBe(false);
    sink.close();
  });

  it("starts the file again on every try", async () => {
    const path = join(work, "raw-retried.bin");
    const sink = new FileBodySink(path);
    sink.onHead(200, {});
    await feed(sink, pieces(data));
    sink.onHead(200, {});
    await feed(sink, [new Uint8Array(data.subarray(0, 10))]);
    sink.close();
    sink.close();
    expect(sink.written).toBe(10);
    expect(readFileSync(path).equals(data.subarray(0, 10))).toBe(true);
  });
});

describe("BufferRuns", () => {
  /** A socket read of `size` bytes, its own buffer. */
  const read = (size: number) => Buffer.alloc(size, 1);

  it("frees a socket read cut into pieces by chunked framing once a piece of another read follows", () => {
    const runs = new BufferRuns();
    const first = read(1000);
    const second = read(1000);
    // `\r\n` ends a frame at the start, a chunk-size line sits between the pieces.
    runs.done(first.subarray(2, 500));
    runs.done(first.subarray(508, 1000));
    expect(first.buffer.detached).toBe(false);
    runs.done(second.subarray(0, 1000));
    expect(first.buffer.detached).toBe(true);
    expect(second.buffer.detached).toBe(false);
    runs.finish();
    expect(second.buffer.detached).toBe(true);
  });

  it("never frees a buffer its pieces do not span: the answer's head, Buffer's pool", () => {
    const runs = new BufferRuns();
    const headed = read(1000);
    const pooled = Buffer.from("a piece of Buffer's pool");
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    runs.done(headed.subarray(300, 1000));
    runs.done(pooled);
    runs.done(read(10));
    runs.finish();
    expect(headed.buffer.detached).toBe(false);
    expect(pooled.buffer.detached).toBe(false);
  });

  it("never frees a buffer that also backs a chunk handed elsewhere", () => {
    const runs = new BufferRuns();
    const shared = read(1000);
    runs.keep(shared.subarray(0, 400));
    runs.done(shared.subarray(408, 1000));
    runs.done(read(10));
    expect(shared.buffer.detached).toBe(false);
  });
});

describe("writeAll", () => {
  it("writes the rest after a file takes fewer bytes than asked", async () => {
    const received: number[] = [];
    const stingy = {
      async writev(chunks: Uint8Array[]) {
        const all = Buffer.concat(chunks);
        const taken = all.subarray(0, 7);
        received.push(...taken);
        return { bytesWritten: taken.length, buffers: chunks };
      },
    };
    const chunks = [Uint8Array.of(1, 2, 3), Uint8Array.of(4, 5, 6, 7, 8, 9, 10, 11), Uint8Array.of(12)];
    await writeAll(stingy as never, chunks, 12);
    expect(received).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it("fails instead of looping when the file takes nothing", async () => {
    const full = { writev: async (chunks: Uint8Array[]) => ({ bytesWritten: 0, buffers: chunks }) };
    await expect(writeAll(full as never, [Uint8Array.of(1)], 1)).rejects.toThrow(/took no bytes/);
  });
});

describe("dropFront", () => {
  const chunks = [Uint8Array.of(1, 2, 3), Uint8Array.of(4, 5), Uint8Array.of(6)];
  const flat = (list: Uint8Array[]) => list.flatMap((chunk) => [...chunk]);

  it("drops whole chunks and part of the next", () => {
    expect(flat(dropFront(chunks, 0))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(flat(dropFront(chunks, 3))).toEqual([4, 5, 6]);
    expect(flat(dropFront(chunks, 4))).toEqual([5, 6]);
    expect(flat(dropFront(chunks, 6))).toEqual([]);
  });

  it("leaves the chunks it was given untouched", () => {
    dropFront(chunks, 4);
    expect(flat(chunks)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe("releaseAll", () => {
  it("detaches a buffer only when the chunk covers all of it", () => {
    const whole = new Uint8Array(8);
    const base = new ArrayBuffer(8);
    const part = new Uint8Array(base, 0, 4);
    releaseAll([whole, part]);
    expect(whole.buffer.detached).toBe(true);
    expect(base.detached).toBe(false);
  });

  it("never detaches an empty buffer, which may be shared (undici's parser reuses one)", () => {
    const empty = Buffer.alloc(0);
    releaseAll([empty]);
    expect(empty.buffer.detached).toBe(false);
  });
});

describe("InlineIo", () => {
  it("runs the pooled operation once the strikes are used up", async () => {
    const io = new InlineIo({ slowMs: 0, strikes: 1 });
    const step = () =>
      io.run<string>(
        () => "inline",
        async () => "pooled",
      );
    expect(await step()).toBe("inline");
    expect(await step()).toBe("pooled");
    expect(io.counts).toEqual({ inline: 1, pooled: 1 });
  });

  it("lets an inline operation's error through, and counts it", async () => {
    const io = new InlineIo({ slowMs: Number.POSITIVE_INFINITY });
    await expect(
      io.run(
        () => {
          throw new Error("disk full");
        },
        async () => undefined,
      ),
    ).rejects.toThrow("disk full");
    expect(io.counts.inline).toBe(1);
  });
});
