import { z } from "zod";
import { safeParseFast } from "../../schema/as-is.ts";
import type { SafeParse } from "../../schema/validate.ts";
import type { EnvironmentConfig } from "../environment.ts";
import { ENVIRONMENT_NAME } from "../environment-name.ts";
import type { SourceLocation } from "../errors.ts";
import type { InstallCodeOverrides } from "../install-codes.ts";
import type { Reporter } from "../report.ts";
import { reportZodIssues } from "../zod-issues.ts";

/** What every normalized document has, of any kind, present or absent. */
export interface KindDocument {
  readonly kind: string;
}

/**
 * A normalized document in one environment, with the reporter that points into its file. A kind's
 * rule narrows `desired` with that kind's own guard, so that this contract does not need the list of
 * every kind (that list is built from the kinds' modules: rules.ts names it).
 */
export interface PlacedDocument<Desired extends KindDocument = KindDocument> {
  // biome-ignore lint/suspicious/noExplicitAny: a document of any kind, with that kind's definition.
  kind: Kind<any>;
  desired: Desired;
  report: Reporter;
}

export interface EnvironmentRuleContext {
  environment: EnvironmentConfig;
  documents: readonly PlacedDocument[];
}

/** A rule over all the documents that apply to one environment. */
export type EnvironmentRule = (context: EnvironmentRuleContext) => void;

/** A field of a kind's normalized documents that names an object of another kind by its key. */
export interface Reference {
  field: string;
  kind: string;
}

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
  /** No `roles:` map: role names are left for the plan to resolve against the instance's roles. */
  rolesFromInstance?: boolean;
  domains: Readonly<Record<string, number>>;
  /** The environment file's `installCodes`, which replace the assumed install option codes. */
  installCodes?: InstallCodeOverrides;
}

/** The id a name → id map gives `name`, by its own keys only (`constructor` is no role). */
export function idOf(map: Readonly<Record<string, number>>, name: string): number | undefined {
  return Object.hasOwn(map, name) ? map[name] : undefined;
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

/**
 * What a PrunePolicy may ask of a kind's live objects that no manifest names: its values, the first
 * being the default (`ignore`). The PrunePolicy schema, its `exclude` keys and the desired state's
 * `prune` derive from the kinds that declare one.
 */
export interface PruneChoice {
  values: readonly [string, ...string[]];
  description: string;
}

/**
 * A document with `ensure: absent`: its key alone, which deletes that one object (docs/manifests.md,
 * "Deleting one object").
 */
export interface DesiredAbsent {
  kind: string;
  ensure: "absent";
  /** The key in lower case, as keys compare. */
  key: string;
  /** The key as written. */
  name: string;
  source: SourceLocation;
  /** The key field's dot-path (`users[3].userName`), for messages at its position. */
  path: string;
}

export function isAbsent(desired: object): desired is DesiredAbsent {
  return (desired as { ensure?: unknown }).ensure === "absent";
}

/** Everything egp knows about one document kind. Adding a kind is adding one of these. */
export interface KindDefinition<
  Doc,
  Desired,
  Plural extends string = string,
  Prune extends PruneChoice | undefined = undefined,
> {
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
  /** Live objects of this kind that no manifest names may be pruned (PrunePolicy). */
  prune?: Prune;
  /**
   * A document may say `ensure: absent` with its key alone, to delete that one object. `schema` is
   * then a strict object whose key field is a string, and may carry `ensure: present`.
   */
  absentable?: boolean;
  /** Maps a valid document to the platform's vocabulary for one environment. */
  normalize(doc: Doc, environment: EnvironmentContext, report: Reporter): Desired;
  /** Plans' words for the fields `normalize` writes; absent: fields show as their changes name them. */
  words?: FieldWords;
  /** Keys of objects every instance has, so that a reference to one needs no manifest. */
  builtIn?: readonly string[];
  /** Fields that name another kind's object: a warning when no manifest and no built-in has it. */
  references?: readonly Reference[];
  /** Rules of this kind over all the documents of one environment (after `references`). */
  environmentRules?: readonly EnvironmentRule[];
}

export interface KeyDefinition<Desired> {
  field: string;
  of(desired: Desired): string;
}

/** A document that passed its schema and its rules, ready to be normalized per environment. */
export interface PreparedDocument<Desired> {
  normalize(environment: EnvironmentContext, report: Reporter): Desired | DesiredAbsent;
  /** The document as its schema gave it, for the manifest cache; absent: not to be cached. */
  readonly data?: unknown;
}

/** A kind with its document type hidden, so that kinds of different types fit in one list. */
export interface Kind<
  Desired,
  Plural extends string = string,
  Prune extends PruneChoice | undefined = PruneChoice | undefined,
> {
  kind: string;
  plural: Plural;
  schema: z.ZodType;
  key: KeyDefinition<Desired>;
  needsPackagesFrom: boolean;
  words?: FieldWords;
  prune: Prune;
  absentable: boolean;
  builtIn: readonly string[];
  references: readonly Reference[];
  environmentRules: readonly EnvironmentRule[];
  /**
   * Step 1 (zod, through `validate`: the shortcut of schema/as-is.ts by default) and step 3 (rules)
   * of validation; null when the document is invalid.
   */
  prepare(report: Reporter, validate?: SafeParse): PreparedDocument<Desired> | null;
  /** A document that `prepare` passed without a word, from its `data` (the manifest cache). */
  restore(data: unknown): PreparedDocument<Desired>;
}

/**
 * A kind's documents in a desired state loaded with it, typed as its `normalize` returns them: the
 * state's type knows egp's own lists only, and a plugin kind's code knows its own.
 */
export function documentsOf<Desired>(kind: Kind<Desired>, desired: object): readonly Desired[] {
  const list = (desired as Readonly<Record<string, unknown>>)[kind.plural];
  return Array.isArray(list) ? (list as readonly Desired[]) : [];
}

/** `file:line:col` of a field of a document, for a message that points at another document. */
export function whereIs(report: Reporter, field: string): string {
  const { file, line, column } = report.document.locate([field]);
  return `${file}:${line}:${column}`;
}

/** The key of a normalized document, present or absent. */
export function keyOf<Desired>(kind: Kind<Desired>, desired: Desired | DesiredAbsent): string {
  return isAbsent(desired as object) ? (desired as DesiredAbsent).key : kind.key.of(desired as Desired);
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `{ kind, environments?, <key>, ensure: absent }` and nothing else. */
function absentSchema(definition: KindDefinition<unknown, unknown, string, PruneChoice | undefined>) {
  const shape = (definition.schema as unknown as z.ZodObject).shape;
  return z
    .strictObject({
      kind: z.literal(definition.kind),
      ...scoping,
      [definition.key.field]: shape[definition.key.field] as z.ZodType<string>,
      ensure: z.literal("absent").describe("Delete this object from the environment."),
    })
    .describe(`A ${definition.kind} to delete: its ${definition.key.field} alone, with ensure: absent.`);
}

/** Step 1 of an `ensure: absent` document: every field but its key is an error, named. */
function prepareAbsent(
  definition: KindDefinition<unknown, unknown, string, PruneChoice | undefined>,
  schema: z.ZodType,
  report: Reporter,
): PreparedDocument<never> | null {
  const value = report.document.value as Record<string, unknown>;
  const allowed = new Set(["kind", "environments", "ensure", definition.key.field]);
  for (const field of Object.keys(value).filter((f) => !allowed.has(f)))
    report.error(
      [field],
      `not allowed with ensure: absent, which names the object by its ${definition.key.field} alone`,
    );
  if (report.failed()) return null;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    reportZodIssues(parsed.error, report);
    return null;
  }
  const name = String(value[definition.key.field]);
  const absent: DesiredAbsent = {
    kind: definition.kind,
    ensure: "absent",
    key: name.toLowerCase(),
    name,
    source: sourceOf(report, definition.key.field),
    path: report.where([definition.key.field]).path,
  };
  return { normalize: () => absent };
}

/** `User anguyen`: the document's kind and key, when the key is written as text. */
function nameOf(
  definition: KindDefinition<unknown, unknown, string, PruneChoice | undefined>,
  value: unknown,
): string | undefined {
  const key = isMapping(value) ? value[definition.key.field] : undefined;
  return typeof key === "string" && key !== "" ? `${definition.kind} ${key}` : undefined;
}

export function defineKind<
  Doc,
  Desired,
  const Plural extends string,
  const Prune extends PruneChoice | undefined = undefined,
>(definition: KindDefinition<Doc, Desired, Plural, Prune>): Kind<Desired, Plural, Prune> {
  const general = definition as unknown as KindDefinition<unknown, unknown, string, PruneChoice | undefined>;
  const absent = definition.absentable ? absentSchema(general) : undefined;
  const restore = (data: unknown): PreparedDocument<Desired> => ({
    data,
    normalize: (environment, r) => definition.normalize(data as Doc, environment, r),
  });
  return {
    kind: definition.kind,
    plural: definition.plural,
    schema: absent
      ? z.discriminatedUnion("ensure", [
          definition.schema as unknown as z.ZodObject<{ ensure: z.ZodOptional<z.ZodLiteral<"present">> }>,
          absent,
        ])
      : definition.schema,
    key: definition.key,
    needsPackagesFrom: definition.needsPackagesFrom ?? false,
    ...(definition.words ? { words: definition.words } : {}),
    prune: definition.prune as Prune,
    absentable: absent !== undefined,
    builtIn: definition.builtIn ?? [],
    references: definition.references ?? [],
    environmentRules: definition.environmentRules ?? [],
    prepare(report, validate = safeParseFast) {
      const value = report.document.value;
      if (absent && isMapping(value) && value.ensure === "absent")
        return prepareAbsent(general, absent, report);
      const parsed = validate(definition.schema, value);
      if (!parsed.success) {
        reportZodIssues(parsed.error, report, { schema: definition.schema, name: nameOf(general, value) });
        return null;
      }
      for (const rule of definition.rules) rule(parsed.data, report);
      if (report.failed()) return null;
      return restore(parsed.data);
    },
    restore,
  };
}

export { ENVIRONMENT_NAME } from "../environment-name.ts";

/** `environments:`, which any document may carry to apply only to the environments it names. */
export const scoping = {
  environments: z
    .array(z.string().regex(ENVIRONMENT_NAME, "expected an environment name (a file in environments/)"))
    .min(1)
    .optional()
    .describe("Environments this document applies to, by environment file name. Absent: every environment."),
};

/** `ensure:` on a kind that may also say `absent` (the other branch of its schema). */
export const ENSURE_PRESENT = z
  .literal("present")
  .optional()
  .describe("present (default): the object exists as described; absent: see the other form.");

/** Free text that the platform stores as string or null. */
export const optionalText = (description: string) => z.string().nullable().optional().describe(description);

/** Reports a value listed twice, at its second occurrence. */
export function reportRepeats(
  values: readonly unknown[] | undefined,
  report: Reporter,
  path: string,
  identity: (value: unknown) => string = String,
): void {
  if (!values || values.length < 2) return;
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
