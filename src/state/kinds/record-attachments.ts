import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, posix } from "node:path";
import type { PlatformClient } from "../../client/client.ts";
import type { DesiredRecords } from "../../manifest/kinds/record.ts";
import { FieldType } from "../../wire/index.ts";

/*
 * What a plan compares attachment fields with: the repository's files an entry names (each path
 * relative to its manifest's file), by sha256, and the live attachments of the matched records, by
 * the sha256 of their bytes. The interface gives no hash of an attachment: its one read returns the
 * bytes (Base64), so a live attachment is read only where an entry gives the field of the record its
 * key matches. All of them, also when the counts differ: an attachment whose bytes a file has is
 * kept by id rather than uploaded again (which would lose its name and its sensitive flag).
 */

const ATTACHMENT_TYPES: readonly number[] = [FieldType.Attachment, FieldType.Image];

/** A file an entry names: found, with its sha256, or why not. */
export type RecordFile =
  | { path: string; name: string; sha256: string; bytes: number }
  | { path: string; problem: "missing" | "outside" | "unread" };

export interface LiveAttachment {
  name: string;
  sha256: string;
}

export interface RecordFiles {
  /** By the manifest file's path, then by the path as the entry writes it. */
  files: Record<string, Record<string, RecordFile>>;
  /** The live attachments read, by id. */
  attachments: Record<string, LiveAttachment>;
}

interface Field {
  name: string;
  alias: string;
  type: number;
}

interface Level {
  fields: readonly Field[];
  records: readonly { id: number; values: Record<string, unknown> }[];
}

/** The paths an attachment value names: a list of paths, or one. */
export function pathsOf(value: unknown): string[] | undefined {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) return undefined;
  return list as string[];
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A path written in `manifest`, from the repository's root; undefined when it leaves the repository. */
function repositoryPath(manifest: string, written: string): string | undefined {
  if (posix.isAbsolute(written) || /^[a-z]:/i.test(written)) return undefined;
  const path = posix.normalize(posix.join(posix.dirname(manifest), written.trim()));
  return path.startsWith("../") || path === ".." ? undefined : path;
}

async function readLocal(dir: string | undefined, manifest: string, written: string): Promise<RecordFile> {
  const path = repositoryPath(manifest, written);
  if (path === undefined) return { path: written, problem: "outside" };
  if (dir === undefined) return { path, problem: "unread" };
  try {
    const bytes = await readFile(join(dir, path));
    return { path, name: posix.basename(path), sha256: sha256(bytes), bytes: bytes.length };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return { path, problem: "missing" };
    throw error;
  }
}

const trimmed = (value: unknown): string =>
  Array.isArray(value) ? trimmed(value.length === 1 ? value[0] : undefined) : String(value ?? "").trim();

/** The live attachment ids to read for one document: those of the fields its entries give, of the records they match. */
function wantedIds(document: DesiredRecords, level: Level): number[] {
  const fields = level.fields.filter((field) => ATTACHMENT_TYPES.includes(field.type));
  const keyAliases = document.key.map((name) => level.fields.find((field) => field.name === name)?.alias);
  if (fields.length === 0 || keyAliases.some((alias) => alias === undefined)) return [];
  const byKey = new Map<string, (typeof level.records)[number][]>();
  for (const record of level.records) {
    const key = JSON.stringify(keyAliases.map((alias) => trimmed(record.values[alias as string])));
    byKey.set(key, [...(byKey.get(key) ?? []), record]);
  }
  const ids: number[] = [];
  for (const entry of document.records) {
    const matched = byKey.get(JSON.stringify(entry.key));
    if (matched?.length !== 1) continue;
    const record = matched[0] as (typeof level.records)[number];
    for (const field of fields) {
      const paths = pathsOf(entry.values[field.name]);
      const live = record.values[field.alias];
      if (!paths || !Array.isArray(live)) continue;
      ids.push(...live.map(Number).filter(Number.isSafeInteger));
    }
  }
  return ids;
}

async function readLive(client: PlatformClient, id: number): Promise<LiveAttachment> {
  const attachment = await client.attachments.get(id);
  return {
    name: attachment.AttachmentName,
    sha256: sha256(Buffer.from(attachment.AttachmentBytes, "base64")),
  };
}

/**
 * The files and live attachments the documents' attachment fields need (levels in the documents'
 * order); undefined when no document gives an attachment field.
 */
export async function readRecordFiles(
  client: PlatformClient,
  dir: string | undefined,
  documents: readonly DesiredRecords[],
  levels: readonly (Level | undefined)[],
): Promise<RecordFiles | undefined> {
  const local: Promise<RecordFile>[] = [];
  const where: [string, string][] = [];
  const ids = new Set<number>();
  documents.forEach((document, index) => {
    const level = levels[index];
    if (!level) return;
    const names = new Set(
      level.fields.filter((field) => ATTACHMENT_TYPES.includes(field.type)).map((field) => field.name),
    );
    for (const entry of document.records)
      for (const [name, value] of Object.entries(entry.values)) {
        if (!names.has(name)) continue;
        const manifest = (entry.fields[name] ?? entry.source).file;
        for (const written of pathsOf(value) ?? []) {
          where.push([manifest, written]);
          local.push(readLocal(dir, manifest, written));
        }
      }
    for (const id of wantedIds(document, level)) ids.add(id);
  });
  if (where.length === 0) return undefined;
  const sorted = [...ids].sort((a, b) => a - b);
  const [found, live] = await Promise.all([
    Promise.all(local),
    Promise.all(sorted.map((id) => readLive(client, id))),
  ]);
  const files: RecordFiles["files"] = {};
  where.forEach(([manifest, written], at) => {
    files[manifest] ??= {};
    (files[manifest] as Record<string, RecordFile>)[written] = found[at] as RecordFile;
  });
  return {
    files,
    attachments: Object.fromEntries(sorted.map((id, at) => [String(id), live[at] as LiveAttachment])),
  };
}
