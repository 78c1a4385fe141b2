import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ApplyError } from "../errors.ts";
import type { OpContext } from "./types.ts";

/*
 * An attachment field's write: the files the plan named are read from the repository (whose `.egp`
 * is the state folder), checked against the sha256 the plan compared, and uploaded (multipart); the
 * field is then set to the ids, live attachments the plan kept included. A file that changed since
 * the plan is not uploaded: the plan showed other bytes.
 */

type Item = { id: number } | { path: string; name: string; sha256: string };

export interface AttachmentValue {
  Attachments: Item[];
}

export function isAttachmentValue(value: unknown): value is AttachmentValue {
  return typeof value === "object" && value !== null && "Attachments" in value;
}

async function upload(context: OpContext, item: Extract<Item, { path: string }>): Promise<number> {
  const root = dirname(context.stateDir);
  const bytes = await readFile(join(root, item.path)).catch((error: NodeJS.ErrnoException) => {
    throw new ApplyError(
      "EGP_PLAN_STALE",
      `${item.path} can't be read to upload (${error.code ?? error.message})`,
      {
        cause: error,
      },
    );
  });
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if (sha256 !== item.sha256)
    throw new ApplyError(
      "EGP_PLAN_STALE",
      `${item.path} changed since the plan (sha256 ${sha256.slice(0, 12)}…, planned ${item.sha256.slice(0, 12)}…): plan again`,
    );
  context.progress(`uploading ${item.path}`);
  return context.client.attachments.postMultipart({ name: item.name, file: bytes, fileName: item.name });
}

/** The ids the field is set to: each kept attachment's, then each file's once uploaded, in the plan's order. */
export async function attachmentIds(context: OpContext, value: AttachmentValue): Promise<number[]> {
  const ids: number[] = [];
  for (const item of value.Attachments) ids.push("id" in item ? item.id : await upload(context, item));
  return ids;
}
