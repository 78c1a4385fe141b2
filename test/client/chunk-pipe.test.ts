import { describe, expect, it } from "vitest";
import { ChunkPipe } from "../../src/client/chunk-pipe.ts";
import { TransferError } from "../../src/client/errors.ts";

/*
 * The pipe between a promotion's download and its upload: bounded (a full pipe makes the producer
 * wait), readable once, and an upload that stops never leaves the download waiting.
 */

const chunk = (size: number, fill = 1) => Buffer.alloc(size, fill);
/** Whether the chunk's memory was freed (its buffer detached). */
const freed = (bytes: Buffer) => (bytes.buffer as ArrayBuffer).detached;

async function collect(pipe: ChunkPipe): Promise<Buffer> {
  return Buffer.concat(await frames(pipe));
}

/** Each chunk the upload takes, copied as it is taken (the pipe may free it later). */
async function frames(pipe: ChunkPipe, safeToFree = false): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  for await (const part of pipe.chunks(safeToFree)) parts.push(Buffer.from(part));
  return parts;
}

/**
 * A body as a chunked download hands it over: socket reads of `read` bytes, each its own buffer,
 * cut into two pieces by the framing (a few bytes) between them.
 */
function framedReads(body: Buffer, read: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let at = 0; at < body.length; at += read) {
    const bytes = body.subarray(at, Math.min(at + read, body.length));
    const socket = Buffer.alloc(bytes.length + 8);
    const cut = Math.floor(bytes.length / 2);
    bytes.copy(socket, 0, 0, cut);
    socket.write("\r\n4000\r\n", cut, "latin1");
    bytes.copy(socket, cut + 8, cut);
    pieces.push(socket.subarray(0, cut), socket.subarray(cut + 8));
  }
  return pieces;
}

describe("ChunkPipe", () => {
  it("makes the producer wait once the limit is reached, until the consumer takes enough", async () => {
    const pipe = new ChunkPipe(30, 20);
    expect(pipe.push(chunk(10, 1))).toBeUndefined();
    const full = pipe.push(chunk(10, 2));
    expect(full).toBeInstanceOf(Promise);
    let settled = false;
    void full?.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    const reading = collect(pipe);
    await full;
    expect(settled).toBe(true);
    await pipe.push(chunk(10, 3));
    pipe.end();
    const bytes = await reading;
    expect([...bytes]).toEqual([...chunk(10, 1), ...chunk(10, 2), ...chunk(10, 3)]);
  });

  it("fails the upload when the download fails", async () => {
    const pipe = new ChunkPipe(10, 100);
    pipe.push(chunk(5));
    const reading = collect(pipe);
    pipe.fail(new Error("connection reset"));
    await expect(reading).rejects.toThrow(/the download feeding this upload stopped: connection reset/);
  });

  it("once abandoned by the upload, releases a waiting producer and drops later chunks", async () => {
    const pipe = new ChunkPipe(40, 10);
    const waiting = pipe.push(chunk(10));
    expect(waiting).toBeInstanceOf(Promise);
    pipe.abandon();
    await waiting;
    expect(pipe.accepting).toBe(false);
    expect(pipe.push(chunk(10))).toBeUndefined();
  });

  it("without a size, hands the chunks on joined in frames of about 256 KiB, every byte in order", async () => {
    const body = Buffer.from(Array.from({ length: 1_000_000 }, (_, i) => i % 251));
    const pipe = new ChunkPipe(undefined, 4 * 1024 * 1024);
    for (const piece of framedReads(body, 65_536)) pipe.push(piece);
    pipe.end();
    const taken = await frames(pipe);
    expect(Buffer.concat(taken).equals(body)).toBe(true);
    expect(taken.length).toBe(4);
    for (const frame of taken.slice(0, -1)) expect(frame.length).toBeGreaterThanOrEqual(256 * 1024);
  });

  it("without a size, a pipe smaller than a frame still hands its chunks on", async () => {
    const pipe = new ChunkPipe(undefined, 20);
    const reading = collect(pipe);
    await pipe.push(chunk(10, 1));
    await pipe.push(chunk(10, 2));
    await pipe.push(chunk(10, 3));
    pipe.end();
    expect([...(await reading)]).toEqual([...chunk(10, 1), ...chunk(10, 2), ...chunk(10, 3)]);
  });

  it("frees the pieces it joined at once, and the frames it sent once the upload is 1 MiB past them", async () => {
    const body = Buffer.from(Array.from({ length: 3_000_000 }, (_, i) => (i * 7) % 253));
    const pieces = framedReads(body, 65_536);
    const pipe = new ChunkPipe(undefined, 8 * 1024 * 1024);
    pipe.producerOwns = true;
    for (const piece of pieces) pipe.push(piece);
    pipe.end();
    const sent: Buffer[] = [];
    const copies: Buffer[] = [];
    for await (const frame of pipe.chunks(true)) {
      sent.push(frame);
      copies.push(Buffer.from(frame));
    }
    expect(Buffer.concat(copies).equals(body)).toBe(true);
    // Every socket read but the last, whose run no later piece closed.
    expect(pieces.slice(0, -2).every(freed)).toBe(true);
    expect(pieces.slice(-2).some(freed)).toBe(false);
    // Frames of 256 KiB: those the upload took more than 1 MiB after are freed, the last ones not.
    expect(sent.slice(0, 6).every(freed)).toBe(true);
    expect(sent.slice(-4).some(freed)).toBe(false);
  });

  it("frees nothing when the upload's socket may still hold what it took", async () => {
    const pieces = framedReads(Buffer.alloc(3_000_000, 5), 65_536);
    const pipe = new ChunkPipe(undefined, 8 * 1024 * 1024);
    pipe.producerOwns = true;
    for (const piece of pieces) pipe.push(piece);
    pipe.end();
    await frames(pipe, false);
    expect(pieces.some(freed)).toBe(false);
  });

  it("can be read once: a retry of the upload cannot get the bytes again", async () => {
    const pipe = new ChunkPipe(1, 10);
    pipe.push(chunk(1));
    pipe.end();
    await collect(pipe);
    await expect(collect(pipe)).rejects.toThrow(TransferError);
  });
});
