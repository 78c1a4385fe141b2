import type { RecordFiles } from "../../state/kinds/record-attachments.ts";
import type { RecordPrincipals } from "../../state/kinds/record-principals.ts";
import type { LiveSubform } from "../../state/kinds/record-subforms.ts";

/*
 * What every field type's resolution shares: the result's shape, what it may need of the instance,
 * and how names are compared and suggested.
 */

export type Problems<P> = Record<"invalid" | "ambiguous" | "unresolved", P[]>;

/** A written value as the content calls take it. */
export type PlainWireValue =
  | string
  | number
  | null
  | { ValuesListIds: number[]; OtherText: string | null }
  | { UserList: { Id: number }[]; GroupList: { Id: number }[] }
  | { Name: string; URL: string }[];

/** A written value as the step holds it: attachments and sub-form rows are made into ids by apply. */
export type WireValue = PlainWireValue | AttachmentWrite | SubformWrite;

/**
 * A sub-form field's new value before apply: the live rows kept, by id, and the rows to create
 * (fields by id, values as the content calls take them); apply sends the ids.
 */
export interface SubformWrite {
  SubformFieldId: number;
  Rows: (
    | { id: number }
    | { levelId: number; fields: { fieldId: number; type: number; value: PlainWireValue }[] }
  )[];
}

/**
 * An attachment field's new value before apply: live attachments kept by id, and files to upload
 * (by repository path, checked against their sha256 when read); apply sends the ids.
 */
export interface AttachmentWrite {
  Attachments: ({ id: number } | { path: string; name: string; sha256: string })[];
}

/** What a field's resolution may need of the instance beyond the field itself. */
export interface ValueContext {
  /** The instance's users and groups; absent when no document writes a users/groups field. */
  principals?: RecordPrincipals;
  /** The files attachment fields name, and the live attachments read; absent when none is written. */
  files?: RecordFiles;
  /** The manifest file the entry is written in, which its file paths are relative to. */
  manifest?: string;
  /** The sub-forms whose rows documents write, by module id. */
  subforms?: Record<string, LiveSubform>;
}

/** A value the planner can't write: of the wrong form (invalid) or naming nothing (unresolved). */
export type ValueProblem = { problem: keyof Problems<unknown>; message: string };

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

/** `; did you mean "Tier 2"?` when one known name is a likely typo of `name` (case, or two edits). */
export function didYouMean(name: string, known: readonly string[]): string {
  const lower = name.toLowerCase();
  const limit = Math.min(2, Math.floor(name.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const d = candidate.toLowerCase() === lower ? 0 : distance(lower, candidate.toLowerCase());
    if (d <= limit && (!best || d < best.distance)) best = { name: candidate, distance: d };
  }
  return best ? `; did you mean "${best.name}"?` : "";
}

/** Whether two lists hold the same items, in any order and however often. */
export function sameSet<T>(a: readonly T[], b: readonly T[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
}

export interface Resolved {
  wire: WireValue;
  /** Whether the live value already is it. */
  same: boolean;
  /** The live value as the plan shows it. */
  before: unknown;
}
