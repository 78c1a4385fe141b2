import { HttpFailure, message } from "../failure.ts";
import type { Store } from "../store.ts";
import type { Keyring } from "./cipher.ts";
import { contentOf, type StoredAttachment } from "./model.ts";

/*
 * Attachments: the bytes live in the content state (so `--data` keeps them), as base64; sensitive
 * files as AES-256-GCM ciphertext only, so their bytes never reach the snapshot in plain text.
 */

/** Largest attachment, in bytes (25 MiB), by either post. */
export const ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;

/** Body limit of the Base64 post: the Base64 of the largest file plus 1 MiB for the rest of the JSON. */
export const ATTACHMENT_BODY_LIMIT = Math.ceil(ATTACHMENT_MAX_BYTES / 3) * 4 + 1024 * 1024;

export interface NewAttachment {
  name: string;
  bytes: Buffer;
  sensitive: boolean;
  contentType: string | null;
  ownerId: number;
}

const aadOf = (id: number) => `attachment:${id}`;

export function tooLarge(): HttpFailure {
  return new HttpFailure(
    413,
    message(
      "AttachmentTooLarge",
      `The attachment is larger than the limit of ${ATTACHMENT_MAX_BYTES} bytes (25 MiB).`,
    ),
  );
}

export function addAttachment(store: Store, keyring: Keyring, file: NewAttachment): StoredAttachment {
  if (file.bytes.length > ATTACHMENT_MAX_BYTES) throw tooLarge();
  const id = store.nextId("attachment");
  const base = {
    Id: id,
    Name: file.name,
    IsSensitive: file.sensitive,
    Size: file.bytes.length,
    ContentType: file.contentType,
    OwnerId: file.ownerId,
    CreateDate: store.isoNow(),
  };
  let attachment: StoredAttachment;
  if (file.sensitive) {
    const sealed = keyring.seal(file.bytes, aadOf(id));
    attachment = {
      ...base,
      Data: sealed.data.toString("base64"),
      Iv: sealed.iv.toString("base64"),
      AuthTag: sealed.tag.toString("base64"),
      KeyId: sealed.keyId,
    };
  } else {
    attachment = { ...base, Data: file.bytes.toString("base64") };
  }
  contentOf(store).attachments[String(id)] = attachment;
  store.changed();
  return attachment;
}

/** The plain bytes, from whichever store holds them. */
export function attachmentBytes(keyring: Keyring, attachment: StoredAttachment): Buffer {
  const data = Buffer.from(attachment.Data, "base64");
  if (!attachment.IsSensitive) return data;
  const sealed = {
    data,
    iv: Buffer.from(attachment.Iv ?? "", "base64"),
    tag: Buffer.from(attachment.AuthTag ?? "", "base64"),
    keyId: attachment.KeyId ?? "",
  };
  let plain: Buffer | undefined;
  try {
    plain = keyring.open(sealed, aadOf(attachment.Id));
  } catch {
    throw new HttpFailure(
      500,
      message("AttachmentCorrupt", `Attachment ${attachment.Id} failed its integrity check.`),
    );
  }
  if (!plain) {
    throw new HttpFailure(
      500,
      message(
        "AttachmentKeyUnavailable",
        `Attachment ${attachment.Id} was encrypted with a key this instance does not have (see EGP_EMULATOR_ATTACHMENT_KEY).`,
      ),
    );
  }
  return plain;
}
