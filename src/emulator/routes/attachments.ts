import multipart from "@fastify/multipart";
import type { Envelope, ValidationMessage } from "../../wire/index.ts";
import {
  ATTACHMENT_BODY_LIMIT,
  ATTACHMENT_MAX_BYTES,
  addAttachment,
  attachmentBytes,
  tooLarge,
} from "../content/attachment-store.ts";
import { Keyring, keyFromEnvironment } from "../content/cipher.ts";
import { keyed } from "../content/field-values.ts";
import { contentOf } from "../content/model.ts";
import { canReadAttachment, sessionUser } from "../content/permissions.ts";
import { ok, okId } from "../envelope.ts";
import { forbidden, HttpFailure, message, notFound } from "../failure.ts";
import { parseODataQuery } from "../odata.ts";
import { pathId } from "../path-id.ts";
import type { RouteContext, Routes } from "../router.ts";
import type { SegmentContext } from "./segment-context.ts";

/*
 * Attachments: post as Base64 JSON (AttachmentWrapper) or as multipart/form-data, get by id. Both
 * posts refuse a missing AttachmentName or AttachmentBytes with the seed's "badly formatted"
 * message, and files over 25 MiB with 413. The multipart file part is read as a stream under that
 * limit; the Base64 post is JSON and bounded by a body limit sized for the largest file.
 * `IsSensitive` files are stored encrypted (cipher.ts); get decrypts them transparently.
 */

const NAME_MAX = 255;

function badlyFormatted(what: string): ValidationMessage {
  return message("BadlyFormattedRequest", `The request was badly formatted: ${what}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `IsSensitive` as a boolean: omitted or null is false; "true"/"false" bind as everywhere else. */
function sensitiveFlag(raw: unknown, messages: ValidationMessage[]): boolean {
  if (raw === undefined || raw === null || raw === "") return false;
  if (typeof raw === "boolean") return raw;
  const text = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  if (text === "true" || text === "false") return text === "true";
  messages.push(
    message("InvalidValue", "IsSensitive: must be true or false.", {
      erroredValue: String(raw).slice(0, 40),
    }),
  );
  return false;
}

function checkName(name: unknown, messages: ValidationMessage[]): string {
  if (typeof name !== "string" || name.trim() === "") {
    messages.push(badlyFormatted("AttachmentName is required."));
    return "";
  }
  if (name.length > NAME_MAX) {
    messages.push(message("InvalidValue", `AttachmentName: must be at most ${NAME_MAX} characters.`));
  }
  return name;
}

/** Strict Base64 (line breaks and spaces allowed, as MIME writes it). */
function decodeBase64(text: string): Buffer | undefined {
  const compact = text.replace(/\s+/g, "");
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
  return Buffer.from(compact, "base64");
}

function postBytes(ctx: RouteContext, keyring: Keyring): Envelope {
  const body = ctx.body;
  if (!isObject(body)) {
    throw new HttpFailure(400, badlyFormatted("the body must be an AttachmentWrapper JSON object."));
  }
  const messages: ValidationMessage[] = [];
  const name = checkName(keyed(body, "AttachmentName"), messages);
  const encoded = keyed(body, "AttachmentBytes");
  if (typeof encoded !== "string") messages.push(badlyFormatted("AttachmentBytes (Base64) is required."));
  const sensitive = sensitiveFlag(keyed(body, "IsSensitive"), messages);
  if (messages.length > 0) throw new HttpFailure(400, messages);
  const bytes = decodeBase64(encoded as string);
  if (!bytes) {
    throw new HttpFailure(400, message("InvalidBase64", "AttachmentBytes: is not valid Base64."));
  }
  const attachment = addAttachment(ctx.store, keyring, {
    name,
    bytes,
    sensitive,
    contentType: null,
    ownerId: sessionUser(ctx.session),
  });
  return okId(attachment.Id);
}

interface ReceivedParts {
  name?: string;
  sensitive?: string;
  bytes?: Buffer;
  contentType?: string;
  bytesAsField: boolean;
  truncated: boolean;
}

/** Reads the parts; the file part is streamed and cut at the size limit. */
async function receiveParts(ctx: RouteContext): Promise<ReceivedParts> {
  const received: ReceivedParts = { bytesAsField: false, truncated: false };
  const parts = ctx.req.parts({
    limits: { fileSize: ATTACHMENT_MAX_BYTES, files: 4, fields: 16, parts: 24, fieldSize: 64 * 1024 },
  });
  for await (const part of parts) {
    const field = part.fieldname.toLowerCase();
    if (part.type === "field") {
      const value = String(part.value);
      if (field === "attachmentname") received.name = value;
      else if (field === "issensitive") received.sensitive = value;
      else if (field === "attachmentbytes") received.bytesAsField = true;
      continue;
    }
    const chunks: Buffer[] = [];
    const keep = field === "attachmentbytes" && received.bytes === undefined;
    // Every file part must be read to its end, or the parser waits for it forever.
    for await (const chunk of part.file) if (keep) chunks.push(chunk as Buffer);
    if (!keep) continue;
    received.bytes = Buffer.concat(chunks);
    received.contentType = part.mimetype;
    received.truncated = part.file.truncated;
  }
  return received;
}

async function postMultipart(ctx: RouteContext, keyring: Keyring): Promise<Envelope> {
  if (!ctx.req.isMultipart()) {
    throw new HttpFailure(
      415,
      message(
        "UnsupportedMediaType",
        "Post a multipart attachment as multipart/form-data with the parts AttachmentName, IsSensitive and AttachmentBytes.",
      ),
    );
  }
  let received: ReceivedParts;
  try {
    received = await receiveParts(ctx);
  } catch (error) {
    throw partsFailure(error);
  }
  if (received.truncated) throw tooLarge();
  const messages: ValidationMessage[] = [];
  const name = checkName(received.name, messages);
  if (!received.bytes) {
    messages.push(
      badlyFormatted(
        received.bytesAsField
          ? "AttachmentBytes must be a file part (with a filename)."
          : "the AttachmentBytes file part is required.",
      ),
    );
  }
  const sensitive = sensitiveFlag(received.sensitive, messages);
  if (messages.length > 0) throw new HttpFailure(400, messages);
  // The lock of the request's first turn ended while the parts arrived: the content is read anew.
  ctx.store.begin();
  const attachment = addAttachment(ctx.store, keyring, {
    name,
    bytes: received.bytes as Buffer,
    sensitive,
    contentType: received.contentType ?? null,
    ownerId: sessionUser(ctx.session),
  });
  return okId(attachment.Id);
}

/** A malformed multipart body is a 4xx, never a 500. */
function partsFailure(error: unknown): HttpFailure {
  if (error instanceof HttpFailure) return error;
  const status = (error as { statusCode?: number }).statusCode;
  if (status === 413 && (error as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE") return tooLarge();
  const text = error instanceof Error ? error.message : String(error);
  return new HttpFailure(
    status !== undefined && status >= 400 && status < 500 ? status : 400,
    badlyFormatted(`the multipart body could not be read (${text}).`),
  );
}

function getAttachment(ctx: RouteContext, keyring: Keyring): Envelope {
  const id = pathId(ctx.params, "attachmentId");
  parseODataQuery(ctx.query, [], { allow: [] });
  const content = contentOf(ctx.store);
  const attachment = content.attachments[String(id)];
  if (!attachment) throw notFound("Attachment", id);
  if (!canReadAttachment(ctx.store, content, sessionUser(ctx.session), id, attachment.OwnerId)) {
    throw forbidden("AttachmentAccessDenied", `The session's user may not read attachment ${id}.`);
  }
  return ok({
    AttachmentName: attachment.Name,
    AttachmentBytes: attachmentBytes(keyring, attachment).toString("base64"),
    IsSensitive: attachment.IsSensitive,
  });
}

export async function registerAttachments(routes: Routes, context: SegmentContext): Promise<void> {
  // The packages segment registers the multipart parser; register it only when it is missing.
  if (!context.app.hasContentTypeParser("multipart/form-data")) {
    await context.app.register(multipart, { throwFileSizeLimit: false });
  }
  const keyring = new Keyring(context.store, keyFromEnvironment());
  const bodyLimit = Math.max(context.options.bodyLimit, ATTACHMENT_BODY_LIMIT);
  routes.post("/core/content/attachment", (ctx) => postBytes(ctx, keyring), { bodyLimit });
  routes.post("/core/content/multipartattachment", (ctx) => postMultipart(ctx, keyring));
  routes.read("/core/content/attachment/:attachmentId", (ctx) => getAttachment(ctx, keyring));
}
