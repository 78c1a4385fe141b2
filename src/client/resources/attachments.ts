import { AttachmentWrapper, IdObject } from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import { one } from "../envelope.ts";
import { fileSourceOf, type UploadSource } from "../file-source.ts";
import { multipartBody } from "../multipart.ts";
import type { OnProgress } from "../progress.ts";
import { route } from "../route.ts";

/*
 * Attachments. Posts create, so they are not retried (OutcomeUnknownError on a lost answer).
 * The multipart post streams its file part; the bytes post carries Base64 in JSON, as the seed
 * defines it, so it suits small files only.
 */

const idOnly = one(IdObject);

export interface MultipartAttachment {
  name: string;
  file: UploadSource;
  isSensitive?: boolean;
  /** Content type of the file part; default application/octet-stream. */
  contentType?: string;
  /** File name of the file part; default: `name`. */
  fileName?: string;
  onProgress?: OnProgress;
}

export function attachmentsResource(caller: Caller) {
  return {
    /** The attachment's name and Base64 bytes, from whichever store holds it. */
    async get(attachmentId: number) {
      return caller.call({
        method: "POST",
        override: true,
        route: route`/core/content/attachment/${idOf("attachmentId", attachmentId)}`,
        decode: one(AttachmentWrapper),
      });
    },

    /** Returns the new attachment's id. */
    post: async (attachment: AttachmentWrapper) =>
      (
        await caller.call({
          method: "POST",
          route: route`/core/content/attachment`,
          json: attachment,
          decode: idOnly,
        })
      ).Id,

    /** Multipart post: parts `AttachmentName`, `IsSensitive` and the file part `AttachmentBytes`. */
    postMultipart: async (attachment: MultipartAttachment) => {
      const file = await fileSourceOf(
        attachment.file,
        attachment.fileName ?? attachment.name,
        attachment.onProgress,
        caller.ownsTransport,
      );
      const body = multipartBody([
        { name: "AttachmentName", value: attachment.name },
        { name: "IsSensitive", value: String(attachment.isSensitive ?? false) },
        { name: "AttachmentBytes", contentType: attachment.contentType ?? "application/octet-stream", file },
      ]);
      return (
        await caller.call({
          method: "POST",
          route: route`/core/content/multipartattachment`,
          multipart: body,
          decode: idOnly,
        })
      ).Id;
    },
  };
}

export type AttachmentsResource = ReturnType<typeof attachmentsResource>;
