import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileSourceOf } from "../../src/client/file-source.ts";

/*
 * Upload sources read from a file: every byte in order, in chunks of at most 256 KiB, read on the
 * main thread or (after slow reads) in the thread pool, from fresh buffers or a reused ring.
 */

const work = mkdtempSync(join(tmpdir(), "egp-file-source-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const data = randomBytes(1_300_001);
const path = join(work, "package.zip");
writeFileSync(path, data);

/** Reads a source through, copying each chunk at once (a ring buffer is reused afterwards). */
async function readAll(chunks: AsyncIterable<Buffer>): Promise<{ bytes: Buffer; sizes: number[] }> {
  const copies: Buffer[] = [];
  for await (const chunk of chunks) copies.push(Buffer.from(chunk));
  return { bytes: Buffer.concat(copies), sizes: copies.map((c) => c.length) };
}

describe("fileSourceOf(path)", () => {
  for (const reuse of [false, true]) {
    it(`reads every byte in order in chunks of up to 256 KiB (${reuse ? "ring" : "fresh buffers"})`, async () => {
      const progress: number[] = [];
      const source = fileSourceOf(path, undefined, (p) => progress.push(p.bytes), reuse);
      expect(source.size).toBe(data.length);
      const { bytes, sizes } = await readAll(source.open());
      expect(bytes.equals(data)).toBe(true);
      expect(Math.max(...sizes)).toBe(256 * 1024);
      expect(sizes.length).toBe(Math.ceil(data.length / (256 * 1024)));
      expect(progress.at(-1)).toBe(data.length);
    });
  }

  it("reads the same bytes once reads have moved to the thread pool", async () => {
    // Every read takes at least 0 ms: after one strike the rest go to the thread pool.
    const source = fileSourceOf(path, undefined, undefined, true, { slowMs: 0, strikes: 1 });
    const { bytes } = await readAll(source.open());
    expect(bytes.equals(data)).toBe(true);
  });

  it("can be opened again, for a retry after a re-login", async () => {
    const source = fileSourceOf(path, undefined, undefined, true);
    const first = await readAll(source.open());
    const second = await readAll(source.open());
    expect(second.bytes.equals(first.bytes)).toBe(true);
  });
});
