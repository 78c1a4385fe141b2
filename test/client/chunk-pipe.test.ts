import { describe, expect, it } from "vitest";
import { ChunkPipe } from "../../src/client/chunk-pipe.ts";
import { TransferError } from "../../src/client/errors.ts";

/*
 * The pipe between a promotion's download and its upload: bounded (a full pipe makes the producer
 * wait), readable once, and an upload that stops never leaves the download waiting.
 */

const chunk = (size: number, fill = 1) => Buffer.alloc(size, fill);

async function collect(pipe: ChunkPipe): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of pipe.chunks(false)) parts.push(Buffer.from(part));
  return Buffer.concat(parts);
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

  it("can be read once: a retry of the upload cannot get the bytes again", async () => {
    const pipe = new ChunkPipe(1, 10);
    pipe.push(chunk(1));
    pipe.end();
    await collect(pipe);
    await expect(collect(pipe)).rejects.toThrow(TransferError);
  });
});
