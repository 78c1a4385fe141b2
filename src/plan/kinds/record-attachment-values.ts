import type { RecordFieldValue } from "../../manifest/kinds/record.ts";
import type { LiveRecordField } from "../../state/kinds/record.ts";
import type { RecordFile } from "../../state/kinds/record-attachments.ts";
import type { AttachmentWrite, Resolved, ValueContext, ValueProblem } from "./record-value-base.ts";

/*
 * An attachment (or image) field: written as a list of repository file paths, each relative to its
 * manifest's file, compared with the live attachments by sha256 (the bytes, whatever the names).
 * The step keeps each live attachment whose bytes a file has, by id, and names the other files, by
 * path and sha256, for apply to upload; the field is then set to the ids.
 */

const FORM = "an attachment field takes a list of file paths, relative to the manifest's file";

const WHY: Record<Exclude<RecordFile, { sha256: string }>["problem"], string> = {
  missing: "no such file in the repository",
  outside: "a path outside the repository",
  unread: "the repository's files are not read here",
};

function pathsOf(value: RecordFieldValue): string[] | undefined {
  if (value === null) return [];
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || !list.every((item): item is string => typeof item === "string"))
    return undefined;
  return list;
}

const sorted = (list: readonly string[]) => [...list].sort().join("\u0000");

export function resolveAttachments(
  field: LiveRecordField,
  desired: RecordFieldValue,
  live: unknown,
  context: ValueContext,
): Resolved | ValueProblem {
  const paths = pathsOf(desired);
  if (!paths) return { problem: "invalid", message: FORM };
  const written = context.files?.files[context.manifest ?? ""] ?? {};
  const files: Extract<RecordFile, { sha256: string }>[] = [];
  for (const path of paths) {
    const file = written[path];
    if (!file || !("sha256" in file))
      return {
        problem: "invalid",
        message: `"${field.name}": ${path}: ${WHY[file?.problem ?? "unread"]}${file && file.path !== path ? ` (${file.path})` : ""}`,
      };
    files.push(file);
  }
  const ids = Array.isArray(live) ? live.map(Number).filter(Number.isSafeInteger) : [];
  const read = ids.map((id) => context.files?.attachments[String(id)]);
  const known = read.every((attachment) => attachment !== undefined);
  const before =
    ids.length === 0
      ? null
      : known
        ? read.map((attachment) => attachment?.name)
        : `(${ids.length} attachment${ids.length === 1 ? "" : "s"})`;
  const same =
    known &&
    sorted(files.map((file) => file.sha256)) === sorted(read.map((attachment) => attachment?.sha256 ?? ""));
  const kept = new Map<string, number[]>();
  ids.forEach((id, at) => {
    const hash = read[at]?.sha256;
    if (hash) kept.set(hash, [...(kept.get(hash) ?? []), id]);
  });
  const items: AttachmentWrite["Attachments"] = files.map((file) => {
    const id = kept.get(file.sha256)?.shift();
    return id !== undefined ? { id } : { path: file.path, name: file.name, sha256: file.sha256 };
  });
  return { wire: items.length === 0 ? null : { Attachments: items }, same, before };
}
