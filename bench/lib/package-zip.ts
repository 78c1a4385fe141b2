import { randomFillSync } from "node:crypto";
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import yauzl from "yauzl";
import { ZipFile } from "yazl";

/*
 * Raw HTTP helpers for package benches (no egp client, so that they measure nothing of it), and a
 * large package zip the emulator accepts: a real generated package's entries plus one stored asset
 * of incompressible bytes (as bench/emulator-transfer.ts builds it).
 */

const MB = 1024 * 1024;
export const RISK_REGISTER_GUID = "33528536-2b2b-5d6d-943c-276096d4be22";

export async function rawLogin(url: string, password: string): Promise<string> {
  const response = await request(`${url}/platformapi/core/security/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      InstanceName: "Default",
      Username: "sysadmin",
      UserDomain: "",
      Password: password,
    }),
  });
  const json = (await response.body.json()) as { RequestedObject?: { SessionToken?: string } };
  const token = json.RequestedObject?.SessionToken;
  if (!token) throw new Error(`login to ${url} failed (${response.statusCode})`);
  return token;
}

export const authorization = (token: string) => `Platform session-id="${token}"`;

export async function rawCall(
  url: string,
  token: string,
  path: string,
  method: "GET" | "POST",
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await request(`${url}${path}`, {
    method,
    headers: {
      authorization: authorization(token),
      "content-type": "application/json",
      accept: "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.body.json()) as {
    IsSuccessful: boolean;
    RequestedObject: Record<string, unknown>;
  };
  if (response.statusCode !== 200 || !json.IsSuccessful)
    throw new Error(`${method} ${path}: ${response.statusCode}`);
  return json.RequestedObject;
}

export async function rawDownload(url: string, token: string, id: number, file: string): Promise<void> {
  const response = await request(`${url}/api/core/package/download/${id}`, {
    headers: { authorization: authorization(token) },
  });
  if (response.statusCode !== 200) throw new Error(`download ${id}: ${response.statusCode}`);
  await pipeline(response.body, createWriteStream(file));
}

/** Creates, generates and downloads a one-application package on a demo-dev emulator. */
export async function smallPackage(url: string, token: string, file: string): Promise<void> {
  const { Id } = (await rawCall(url, token, "/api/core/package", "POST", {
    Name: "bench seed",
    PackageObjects: [{ Guid: RISK_REGISTER_GUID, Type: "Application" }],
  })) as { Id: number };
  await rawCall(url, token, `/api/core/package/generate/${Id}`, "POST");
  for (let waited = 0; ; waited += 50) {
    const info = (await rawCall(url, token, `/api/core/package/${Id}`, "GET")) as { Status: string };
    if (info.Status === "Ready") break;
    if (info.Status === "Failed" || waited > 30_000) throw new Error("generation failed");
    await sleep(50);
  }
  await rawDownload(url, token, Id, file);
}

/** The small package's entries plus `sizeMB` of stored, incompressible bytes. */
export async function bigPackage(small: string, file: string, sizeMB: number): Promise<void> {
  const zip = new ZipFile();
  const source = await yauzl.openPromise(small);
  for await (const entry of source.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of (await source.openReadStreamPromise(entry)) as AsyncIterable<Buffer>)
      chunks.push(chunk);
    zip.addBuffer(Buffer.concat(chunks), entry.fileName);
  }
  source.close();
  const size = sizeMB * MB;
  async function* noise() {
    const block = Buffer.alloc(MB);
    for (let sent = 0; sent < size; sent += MB) yield Buffer.from(randomFillSync(block));
  }
  zip.addReadStreamLazy("assets/evidence.bin", { compress: false, size }, (cb) =>
    cb(null, Readable.from(noise())),
  );
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}

/** Uploads a zip as one multipart file part, streamed from disk; returns the package id. */
export async function rawUpload(url: string, token: string, file: string): Promise<number> {
  const boundary = "egp-bench-boundary";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\nContent-Type: application/zip\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body() {
    yield head;
    yield* createReadStream(file);
    yield tail;
  }
  const response = await request(`${url}/api/core/package/upload`, {
    method: "POST",
    headers: {
      authorization: authorization(token),
      "content-type": `multipart/form-data; boundary=${boundary}`,
      "content-length": String(head.length + statSync(file).size + tail.length),
      accept: "application/json",
    },
    body: Readable.from(body()),
  });
  const json = (await response.body.json()) as { RequestedObject?: { Id?: number } };
  if (response.statusCode !== 200 || typeof json.RequestedObject?.Id !== "number")
    throw new Error(`upload: ${response.statusCode}`);
  return json.RequestedObject.Id;
}

/** The stored size of a package, as the emulator reports it (not in the seed). */
export async function packageSize(url: string, token: string, id: number): Promise<number> {
  const info = (await rawCall(url, token, `/api/core/package/${id}`, "GET")) as { Size?: number };
  return Number(info.Size);
}
