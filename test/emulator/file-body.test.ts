import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, get, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileBody } from "../../src/emulator/file-body.ts";

/*
 * A file served from a ring of reused buffers arrives byte for byte, also to a client that reads
 * slowly (the socket's buffers fill, writes stay queued, and a buffer must not be refilled while
 * the socket still holds it).
 */

const work = mkdtempSync(join(tmpdir(), "egp-file-body-"));
const data = randomBytes(24 * 1024 * 1024 + 12_345);
const path = join(work, "package.zip");
writeFileSync(path, data);

let server: Server;
let url = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { "content-length": String(data.length) });
    fileBody(req.url === "/missing" ? join(work, "missing.zip") : path)
      .on("error", () => res.destroy())
      .pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

/** Reads the body, waiting `startMs` before the first read and `everyMs` after each chunk. */
function fetchSlowly(path: string, startMs: number, everyMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    get(`${url}${path}`, (res) => {
      const chunks: Buffer[] = [];
      res.pause();
      const next = async () => {
        for (;;) {
          const chunk = res.read() as Buffer | null;
          if (chunk === null) break;
          chunks.push(chunk);
          if (everyMs > 0) await sleep(everyMs);
        }
      };
      res.on("readable", () => void next());
      res.on("end", () => resolve(Buffer.concat(chunks)));
      res.on("error", reject);
      setTimeout(() => void next(), startMs);
    }).on("error", reject);
  });
}

describe("fileBody", () => {
  it("serves every byte of a file to a client that reads at once", async () => {
    const body = await fetchSlowly("/", 0, 0);
    expect(body.length).toBe(data.length);
    expect(body.equals(data)).toBe(true);
  });

  it("serves every byte to a client that lets the socket fill up and then reads slowly", async () => {
    const body = await fetchSlowly("/", 300, 1);
    expect(body.length).toBe(data.length);
    expect(body.equals(data)).toBe(true);
  });

  it("a file that cannot be opened is an error of the stream", async () => {
    await expect(fetchSlowly("/missing", 0, 0)).rejects.toThrow();
  });
});
