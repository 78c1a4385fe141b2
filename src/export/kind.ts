import type { EnvironmentConfig } from "../manifest/index.ts";
import type { LiveState } from "../state/index.ts";

/** What an exporter may use: the environment (its name and maps) and what it reported. */
export interface ExportContext {
  environment: EnvironmentConfig;
  live: LiveState;
  /** `--target`: whether to write the object of `kind` with this key; absent: write everything. */
  selects?: (kind: string, key: string) => boolean;
  /** Write the account egp logs in with too (left out by default: one edit could lock egp out). */
  includeLoginUser?: boolean;
}

/** A manifest document as plain data, keys in the order they are written. */
export type ExportedDocument = Record<string, unknown>;

export interface KindExport {
  documents: ExportedDocument[];
  /** Live values that no manifest can express, left out (and so unmanaged); one line each. */
  warnings: string[];
  /** Keys of live objects deliberately not written, which an earlier export's file keeps as they are. */
  leftOut?: string[];
}

/** One manifest kind written from live state. Adding a kind to export is adding one of these. */
export interface KindExporter {
  kind: string;
  /** File name under the output directory. */
  file: string;
  /** The field of a document that holds its key (what `--target` matches). */
  key: string;
  /** Plural noun for the summary line. */
  noun: string;
  export(context: ExportContext): KindExport;
}

/** Inverts a `name → code` table of the manifest vocabulary into `code → name`. */
export function namesByCode<N extends string>(codes: Readonly<Record<N, number>>): ReadonlyMap<number, N> {
  return new Map(Object.entries(codes).map(([name, code]) => [code as number, name as N]));
}

/** Free text as a manifest holds it: blank values (which compare equal to absent) are left out. */
export function text(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === "" ? undefined : value;
}

/** Builds one document in key order, noting each live value it has to leave out. */
export class DocumentWriter {
  readonly doc: ExportedDocument;
  readonly warnings: string[] = [];
  private readonly label: string;

  constructor(doc: ExportedDocument, label: string) {
    this.doc = doc;
    this.label = label;
  }

  /** Sets `key` only when there is a value: documents carry only what the instance has. */
  put(key: string, value: unknown): void {
    if (value !== undefined && value !== null) this.doc[key] = value;
  }

  skip(key: string, why: string): void {
    this.warnings.push(`${this.label}: ${key} left out (${why})`);
  }
}
