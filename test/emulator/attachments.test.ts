import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ATTACHMENT_MAX_BYTES } from "../../src/emulator/content/attachment-store.ts";
import { ATTACHMENT_KEY_ENV } from "../../src/emulator/content/cipher.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { DEMO_SENSITIVE_TEXT } from "../../src/emulator/seeds/demo-content.ts";
import { DEMO_PASSWORD } from "../../src/emulator/seeds/demo-users.ts";
import { type Json, Raw, useEmulator } from "../helpers/raw.ts";

/*
 * Attachments over HTTP: both posts, the badly-formatted rule, the size limit, read permission,
 * and sensitive files encrypted at rest in the persisted data file.
 */

interface Part {
  name: string;
  value: string | Buffer;
  fileName?: string;
  contentType?: string;
}

const BOUNDARY = "----egp-test-boundary-7d1f";

function multipart(parts: Part[]): { rawBody: Buffer; headers: Record<string, string> } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const file = part.fileName ? `; filename="${part.fileName}"` : "";
    const type = part.fileName ? `\r\nContent-Type: ${part.contentType ?? "application/octet-stream"}` : "";
    chunks.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"${file}${type}\r\n\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return {
    rawBody: Buffer.concat(chunks),
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

async function postBytes(raw: Raw, token: string, body: unknown) {
  return raw.call("/core/content/attachment", { method: "POST", token, body });
}

async function postMultipart(raw: Raw, token: string, parts: Part[]) {
  return raw.call("/core/content/multipartattachment", { method: "POST", token, ...multipart(parts) });
}

async function getAttachment(raw: Raw, token: string, id: number) {
  return raw.read(`/core/content/attachment/${id}`, token);
}

const badlyFormatted = (response: { status: number; body: Json }) => {
  expect(response.status).toBe(400);
  expect(response.body.IsSuccessful).toBe(false);
  return response.body.ValidationMessages.map((m: Json) => [m.MessageKey, m.Description]);
};

describe("attachments", () => {
  const { raw } = useEmulator({ seed: "demo-dev" });

  it("Base64 post returns the new id; get returns name and bytes intact", async () => {
    const token = await raw().token();
    const posted = await postBytes(raw(), token, {
      AttachmentName: "all-bytes.bin",
      AttachmentBytes: ALL_BYTES.toString("base64"),
    });
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ IsSuccessful: true, RequestedObject: { Id: expect.any(Number) } });
    const read = await getAttachment(raw(), token, posted.body.RequestedObject.Id);
    expect(read.status).toBe(200);
    expect(read.body.RequestedObject).toEqual({
      AttachmentName: "all-bytes.bin",
      AttachmentBytes: ALL_BYTES.toString("base64"),
      IsSensitive: false,
    });
  });

  it("a missing AttachmentName or AttachmentBytes fails with the badly-formatted message", async () => {
    const token = await raw().token();
    const noName = badlyFormatted(await postBytes(raw(), token, { AttachmentBytes: "AAAA" }));
    expect(noName).toEqual([
      ["BadlyFormattedRequest", "The request was badly formatted: AttachmentName is required."],
    ]);
    const noBytes = badlyFormatted(await postBytes(raw(), token, { AttachmentName: "a.txt" }));
    expect(noBytes).toEqual([
      ["BadlyFormattedRequest", "The request was badly formatted: AttachmentBytes (Base64) is required."],
    ]);
    const neither = badlyFormatted(await postBytes(raw(), token, { IsSensitive: true }));
    expect(neither.map(([key]: string[]) => key)).toEqual(["BadlyFormattedRequest", "BadlyFormattedRequest"]);
    expect(badlyFormatted(await postBytes(raw(), token, ["not", "an", "object"]))[0][0]).toBe(
      "BadlyFormattedRequest",
    );
    expect(badlyFormatted(await postBytes(raw(), token, undefined))[0][1]).toMatch(/badly formatted/);
  });

  it("bad Base64 and a bad IsSensitive are validation failures", async () => {
    const token = await raw().token();
    const bad64 = badlyFormatted(
      await postBytes(raw(), token, { AttachmentName: "a", AttachmentBytes: "@@@=" }),
    );
    expect(bad64[0][0]).toBe("InvalidBase64");
    const flag = badlyFormatted(
      await postBytes(raw(), token, { AttachmentName: "a", AttachmentBytes: "AAAA", IsSensitive: "maybe" }),
    );
    expect(flag[0][1]).toMatch(/^IsSensitive: /);
  });

  it("multipart post returns the new id; keys and IsSensitive bind as elsewhere", async () => {
    const token = await raw().token();
    const posted = await postMultipart(raw(), token, [
      { name: "attachmentname", value: "photo.png" },
      { name: "IsSensitive", value: "TRUE" },
      { name: "AttachmentBytes", value: ALL_BYTES, fileName: "photo.png", contentType: "image/png" },
    ]);
    expect(posted.status, posted.text).toBe(200);
    const read = await getAttachment(raw(), token, posted.body.RequestedObject.Id);
    expect(read.body.RequestedObject).toEqual({
      AttachmentName: "photo.png",
      AttachmentBytes: ALL_BYTES.toString("base64"),
      IsSensitive: true,
    });
  });

  it("a multipart post without the AttachmentName or AttachmentBytes part fails with the badly-formatted message", async () => {
    const token = await raw().token();
    const noName = badlyFormatted(
      await postMultipart(raw(), token, [{ name: "AttachmentBytes", value: "x", fileName: "x.txt" }]),
    );
    expect(noName).toEqual([
      ["BadlyFormattedRequest", "The request was badly formatted: AttachmentName is required."],
    ]);
    const noFile = badlyFormatted(
      await postMultipart(raw(), token, [{ name: "AttachmentName", value: "x.txt" }]),
    );
    expect(noFile).toEqual([
      [
        "BadlyFormattedRequest",
        "The request was badly formatted: the AttachmentBytes file part is required.",
      ],
    ]);
    const asField = badlyFormatted(
      await postMultipart(raw(), token, [
        { name: "AttachmentName", value: "x.txt" },
        { name: "AttachmentBytes", value: "plain field" },
      ]),
    );
    expect(asField[0][1]).toMatch(/must be a file part/);
  });

  it("a body that is not multipart is 415; a broken multipart body is a 4xx, never a 500", async () => {
    const token = await raw().token();
    const json = await raw().call("/core/content/multipartattachment", {
      method: "POST",
      token,
      body: { AttachmentName: "x" },
    });
    expect(json.status).toBe(415);
    const truncated = multipart([{ name: "AttachmentName", value: "x" }]).rawBody.subarray(0, 40);
    const broken = await raw().call("/core/content/multipartattachment", {
      method: "POST",
      token,
      rawBody: truncated,
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    });
    expect(broken.status).toBeGreaterThanOrEqual(400);
    expect(broken.status).toBeLessThan(500);
    expect(broken.body.IsSuccessful).toBe(false);
  });

  it("files up to 25 MiB are taken; larger ones are 413 by either post", async () => {
    const token = await raw().token();
    const limit = Buffer.alloc(ATTACHMENT_MAX_BYTES, 7);
    const taken = await postMultipart(raw(), token, [
      { name: "AttachmentName", value: "limit.bin" },
      { name: "AttachmentBytes", value: limit, fileName: "limit.bin" },
    ]);
    expect(taken.status).toBe(200);
    const over = Buffer.alloc(ATTACHMENT_MAX_BYTES + 1, 7);
    const multipartOver = await postMultipart(raw(), token, [
      { name: "AttachmentName", value: "over.bin" },
      { name: "AttachmentBytes", value: over, fileName: "over.bin" },
    ]);
    expect(multipartOver.status).toBe(413);
    expect(multipartOver.body.ValidationMessages[0].MessageKey).toBe("AttachmentTooLarge");
    const bytesOver = await postBytes(raw(), token, {
      AttachmentName: "over.bin",
      AttachmentBytes: over.toString("base64"),
    });
    expect(bytesOver.status).toBe(413);
    expect(bytesOver.body.ValidationMessages[0].MessageKey).toBe("AttachmentTooLarge");
  });

  it("an unknown id is 404, a bad one 400", async () => {
    const token = await raw().token();
    expect((await getAttachment(raw(), token, 999999)).status).toBe(404);
    expect((await raw().read("/core/content/attachment/abc", token)).status).toBe(400);
  });

  it("read permission: the uploader, or a reader of a record that holds the attachment", async () => {
    const bob = await raw().token("bokafor", DEMO_PASSWORD);
    const dev = await raw().token("dpatel", DEMO_PASSWORD);
    // Attachment 2 is the demo's sensitive call tree, held by risk 1002, which Risk Owners read.
    const held = await getAttachment(raw(), bob, 2);
    expect(held.status).toBe(200);
    expect(Buffer.from(held.body.RequestedObject.AttachmentBytes, "base64").toString()).toBe(
      DEMO_SENSITIVE_TEXT,
    );
    expect((await getAttachment(raw(), dev, 2)).status).toBe(403);
    const own = await postBytes(raw(), dev, { AttachmentName: "mine.txt", AttachmentBytes: "bWluZQ==" });
    expect((await getAttachment(raw(), dev, own.body.RequestedObject.Id)).status).toBe(200);
    expect((await getAttachment(raw(), bob, own.body.RequestedObject.Id)).status).toBe(403);
  });
});

describe("sensitive attachments at rest", () => {
  const dir = mkdtempSync(join(tmpdir(), "egp-attachments-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const secret = `TOP SECRET ${randomBytes(12).toString("hex")} merger terms`;
  const plain = `public notes ${randomBytes(12).toString("hex")}`;

  async function session(emulator: Emulator) {
    const raw = new Raw(emulator.url);
    return { raw, token: await raw.token() };
  }

  it("never appear in plain text in the data file, and get returns them intact after a restart", async () => {
    const dataFile = join(dir, "state.json");
    const first = await startEmulator({ seed: "demo-dev", dataFile });
    const { raw, token } = await session(first);
    const bytesId = (
      await postBytes(raw, token, {
        AttachmentName: "terms.txt",
        AttachmentBytes: Buffer.from(secret).toString("base64"),
        IsSensitive: true,
      })
    ).body.RequestedObject.Id;
    const multipartId = (
      await postMultipart(raw, token, [
        { name: "AttachmentName", value: "terms-2.txt" },
        { name: "IsSensitive", value: "true" },
        { name: "AttachmentBytes", value: secret, fileName: "terms-2.txt" },
      ])
    ).body.RequestedObject.Id;
    const plainId = (
      await postBytes(raw, token, {
        AttachmentName: "notes.txt",
        AttachmentBytes: Buffer.from(plain).toString("base64"),
      })
    ).body.RequestedObject.Id;
    await first.close();

    const file = readFileSync(dataFile, "utf8");
    for (const text of [secret, DEMO_SENSITIVE_TEXT]) {
      expect(file).not.toContain(text);
      expect(file).not.toContain(Buffer.from(text).toString("base64"));
      expect(file).not.toContain(JSON.stringify(text).slice(1, -1));
    }
    // The check can fail: a file that is not sensitive is there in Base64.
    expect(file).toContain(Buffer.from(plain).toString("base64"));

    const second = await startEmulator({ dataFile });
    try {
      const again = await session(second);
      for (const id of [bytesId, multipartId]) {
        const read = await getAttachment(again.raw, again.token, id);
        expect(read.status).toBe(200);
        expect(Buffer.from(read.body.RequestedObject.AttachmentBytes, "base64").toString()).toBe(secret);
      }
      const plainRead = await getAttachment(again.raw, again.token, plainId);
      expect(Buffer.from(plainRead.body.RequestedObject.AttachmentBytes, "base64").toString()).toBe(plain);
    } finally {
      await second.close();
    }
  });

  it("use the key from the environment, which is not persisted; without it they can't be read", async () => {
    const dataFile = join(dir, "env-key.json");
    const key = randomBytes(32).toString("hex");
    process.env[ATTACHMENT_KEY_ENV] = key;
    let id: number;
    try {
      const first = await startEmulator({ seed: "empty", dataFile });
      const { raw, token } = await session(first);
      id = (
        await postBytes(raw, token, {
          AttachmentName: "k.txt",
          AttachmentBytes: Buffer.from(secret).toString("base64"),
          IsSensitive: true,
        })
      ).body.RequestedObject.Id;
      await first.close();
      const file = readFileSync(dataFile, "utf8");
      expect(file).not.toContain(key);
      expect(file).not.toContain(Buffer.from(secret).toString("base64"));

      const withKey = await startEmulator({ dataFile });
      const a = await session(withKey);
      const read = await getAttachment(a.raw, a.token, id);
      expect(Buffer.from(read.body.RequestedObject.AttachmentBytes, "base64").toString()).toBe(secret);
      await withKey.close();
    } finally {
      delete process.env[ATTACHMENT_KEY_ENV];
    }
    const withoutKey = await startEmulator({ dataFile });
    try {
      const b = await session(withoutKey);
      const refused = await getAttachment(b.raw, b.token, id);
      expect(refused.body.IsSuccessful).toBe(false);
      expect(refused.body.ValidationMessages[0].MessageKey).toBe("AttachmentKeyUnavailable");
      expect(refused.text).not.toContain(key);
    } finally {
      await withoutKey.close();
    }
  });

  it("a malformed key in the environment stops the emulator with a message that does not echo it", async () => {
    process.env[ATTACHMENT_KEY_ENV] = "not-a-key-0123";
    try {
      await expect(startEmulator({ seed: "empty" })).rejects.toThrow(/must be 64 hexadecimal characters/);
      await expect(startEmulator({ seed: "empty" })).rejects.not.toThrow(/not-a-key-0123/);
    } finally {
      delete process.env[ATTACHMENT_KEY_ENV];
    }
  });
});
