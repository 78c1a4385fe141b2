import { z } from "zod";
import type { SourceLocation } from "../errors.ts";
import type { Reporter } from "../report.ts";
import { reportZodIssues } from "../zod-issues.ts";

/** What a document may use of the environment it is loaded for. */
export interface EnvironmentContext {
  /** The environment's name (its file name without `.yaml`). */
  name: string;
  /** Repository-relative path of the environment file, for messages. */
  file: string;
  roles: Readonly<Record<string, number>>;
  groups: Readonly<Record<string, number>>;
  /** No `groups:` map: group names are left for the plan to resolve against the instance's groups. */
  groupsFromInstance?: boolean;
  domains: Readonly<Record<string, number>>;
}

/**
 * How plans show a field of a kind in the manifest's words: the wire field (the plan JSON's `field`)
 * → its manifest name and, where the wire codes it, its value as a manifest writes it
 * (`AccountStatus: 1` → `status: active`). The kind that maps names and codes one way in
 * `normalize` maps them back here.
 */
export interface FieldWord {
  name: string;
  value?: (wire: unknown) => unknown;
  /** A wire field derived from another: not shown when that one changes too. */
  shownBy?: string;
}
export type FieldWords = Readonly<Record<string, FieldWord>>;

/** `{ minPasswordLength: "MinPasswordLength" }` → words naming each wire field by its manifest name. */
export function namesOf(direct: Readonly<Record<string, string>>): Record<string, FieldWord> {
  return Object.fromEntries(Object.entries(direct).map(([name, wire]) => [wire, { name }]));
}

/** The name a code table gives `code`, or the code itself when the table has none. */
export function nameOfCode(codes: Readonly<Record<string, number>>, code: unknown): unknown {
  return Object.entries(codes).find(([, value]) => value === code)?.[0] ?? code;
}

/** A rule that holds whatever the environment; it reports through `report`. */
export type DocumentRule<Doc> = (doc: Doc, report: Reporter) => void;

/** Everything egp knows about one document kind. Adding a kind is adding one of these. */
export interface KindDefinition<Doc, Desired, Plural extends string = string> {
  kind: string;
  /** Names a document of this kind in dot-paths (`users[3].status`), and its list in the desired state. */
  plural: Plural;
  /** Strict: an unknown key is an error. Includes `kind` and `environments`. */
  schema: z.ZodType<Doc>;
  rules: readonly DocumentRule<Doc>[];
  /**
   * Identity within one environment: two documents with the same key are an error. `field` is where
   * the key is written; a constant key means "at most one per environment".
   */
  key: KeyDefinition<Desired>;
  /**
   * Documents of this kind concern only environments that have `packagesFrom` (packages are
   * promoted into an environment): an unscoped one skips the others, a scoped one naming them is an
   * error.
   */
  needsPackagesFrom?: boolean;
  /** Maps a valid document to the platform's vocabulary for one environment. */
  normalize(doc: Doc, environment: EnvironmentContext, report: Reporter): Desired;
  /** Plans' words for the fields `normalize` writes; absent: fields show as their changes name them. */
  words?: FieldWords;
}

export interface KeyDefinition<Desired> {
  field: string;
  of(desired: Desired): string;
}

/** A document that passed its schema and its rules, ready to be normalized per environment. */
export interface PreparedDocument<Desired> {
  normalize(environment: EnvironmentContext, report: Reporter): Desired;
}

/** A kind with its document type hidden, so that kinds of different types fit in one list. */
export interface Kind<Desired, Plural extends string = string> {
  kind: string;
  plural: Plural;
  schema: z.ZodType;
  key: KeyDefinition<Desired>;
  needsPackagesFrom: boolean;
  words?: FieldWords;
  /** Step 1 (zod) and step 3 (rules) of validation; null when the document is invalid. */
  prepare(report: Reporter): PreparedDocument<Desired> | null;
}

export function defineKind<Doc, Desired, const Plural extends string>(
  definition: KindDefinition<Doc, Desired, Plural>,
): Kind<Desired, Plural> {
  return {
    kind: definition.kind,
    plural: definition.plural,
    schema: definition.schema,
    key: definition.key,
    needsPackagesFrom: definition.needsPackagesFrom ?? false,
    ...(definition.words ? { words: definition.words } : {}),
    prepare(report) {
      const parsed = definition.schema.safeParse(report.document.value);
      if (!parsed.success) {
        reportZodIssues(parsed.error, report);
        return null;
      }
      for (const rule of definition.rules) rule(parsed.data, report);
      if (report.failed()) return null;
      return { normalize: (environment, r) => definition.normalize(parsed.data, environment, r) };
    },
  };
}

/** Environment names are file names: letters, digits, `.`, `_` and `-`. */
export const ENVIRONMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `environments:`, which any document may carry to apply only to the environments it names. */
export const scoping = {
  environments: z
    .array(z.string().regex(ENVIRONMENT_NAME, "expected an environment name (a file in environments/)"))
    .min(1)
    .optional()
    .describe("Environments this document applies to, by environment file name. Absent: every environment."),
};

/** Free text that the platform stores as string or null. */
export const optionalText = (description: string) => z.string().nullable().optional().describe(description);

/** Reports a value listed twice, at its second occurrence. */
export function reportRepeats(
  values: readonly unknown[] | undefined,
  report: Reporter,
  path: string,
  identity: (value: unknown) => string = String,
): void {
  const seen = new Map<string, number>();
  values?.forEach((value, index) => {
    const key = identity(value);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, index);
      return;
    }
    report.error([path, index], `listed twice (also ${path}[${first}])`);
  });
}

/** Where a normalized object came from: the position of its key field. */
export function sourceOf(report: Reporter, keyField: string): SourceLocation {
  return report.document.locate([keyField]);
}
