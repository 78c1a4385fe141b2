import type { Reporter } from "./report.ts";

/*
 * Deletes in a `Record` document: an entry with `ensure: absent` names by its key alone a record
 * to delete; a document with `prune: delete` deletes its level's records that no entry names. Both
 * are written in the reviewed manifests, never a kind-wide policy, so that nobody prunes reference
 * content by leaving a document out.
 */

/** The entry key that says whether the record should exist; not a field of the record. */
export const ENSURE = "ensure";

export const ENSURE_VALUES = ["present", "absent"] as const;

/** Whether an entry, as written, asks for its record's delete. */
export function isAbsentEntry(entry: Readonly<Record<string, unknown>>): boolean {
  return entry[ENSURE] === "absent";
}

/** The entry's fields without `ensure`. */
export function fieldsOfEntry<T>(entry: Readonly<Record<string, T>>): Record<string, T> {
  const { [ENSURE]: _ensure, ...fields } = entry;
  return fields;
}

/**
 * `ensure:` is `present` or `absent`; an absent entry gives its key fields and nothing else, as an
 * `ensure: absent` document gives its key alone.
 */
export function checkEnsure(
  doc: { key: readonly string[]; records: ReadonlyArray<Readonly<Record<string, unknown>>> },
  report: Reporter,
): void {
  doc.records.forEach((entry, index) => {
    const ensure = entry[ENSURE];
    if (ensure === undefined) return;
    if (!ENSURE_VALUES.includes(ensure as (typeof ENSURE_VALUES)[number])) {
      report.error(["records", index, ENSURE], `is "present" or "absent", not ${JSON.stringify(ensure)}`);
      return;
    }
    if (ensure !== "absent") return;
    for (const field of Object.keys(entry))
      if (field !== ENSURE && !doc.key.includes(field))
        report.error(
          ["records", index, field],
          "not allowed with ensure: absent, which names the record by its key fields alone",
        );
  });
}
