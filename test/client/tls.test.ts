import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { ConnectionError, createClient } from "../../src/index.ts";
import { optionsFor } from "./helpers/client.ts";
import { selfSignedCertificate } from "./helpers/tls.ts";

/*
 * The emulator over TLS with a self-signed certificate made for this run: rejected by default,
 * accepted with the certificate as CA file, accepted with `insecure` (and a warning).
 */

describe("TLS", () => {
  const dir = mkdtempSync(join(tmpdir(), "egp-tls-"));
  let certFile = "";
  let emulator: Emulator;

  beforeAll(async () => {
    const certificate = selfSignedCertificate(dir);
    certFile = certificate.certFile;
    emulator = await startEmulator({ port: 0, tls: { key: certificate.key, cert: certificate.cert } });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it("serves https", () => {
    expect(emulator.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it("rejects the self-signed certificate by default, without retrying", async () => {
    const client = createClient(optionsFor(emulator.url));
    const failure = client.metadata.version();
    await expect(failure).rejects.toThrow(ConnectionError);
    await expect(failure).rejects.toMatchObject({ code: "EGP_TLS", sent: false });
    expect(client.stats().requests).toBe(1);
    await client.close();
  });

  it("accepts it with the CA file", async () => {
    const client = createClient(optionsFor(emulator.url, { tls: { caFile: certFile } }));
    await expect(client.metadata.version()).resolves.toMatchObject({ Version: "6.14.0" });
    await client.close();
  });

  it("accepts it with insecure, and warns", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const client = createClient(
      optionsFor(emulator.url, { tls: { insecure: true }, logger: pino({ level: "warn" }, stream) }),
    );
    await expect(client.metadata.version()).resolves.toMatchObject({ Version: "6.14.0" });
    await client.close();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      level: 40,
      msg: expect.stringMatching(/insecure/),
    });
  });
});
