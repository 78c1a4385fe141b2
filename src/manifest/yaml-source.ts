import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import type { Document, LineCounter, Node, YAMLError } from "yaml";
import type { ManifestIssue, SourceLocation } from "./errors.ts";
import { formatPath, type Path, type PathSegment } from "./path.ts";
import { type FastParsed, parseFast, restoreFast, type StoredDocument } from "./yaml-events.ts";

/** One YAML document of a file, as plain data, with a way back to where each part is written. */
export interface SourceDocument {
  /** Repository-relative path, with forward slashes. */
  file: string;
  /** 0-based index of the document in its file. */
  index: number;
  /** The document as plain JS (after `${VAR}` substitution, once `substitute` has run). */
  value: unknown;
  /**
   * Paths (formatted) whose string value came, at least in part, from an environment variable, with
   * the path and the text as written (`${EGP_PROD_PASSWORD}`): plans show that text, never the value.
   */
  readonly substituted: Map<string, Substituted>;
  /** Position of the value at `path` (or of its key), or of the deepest part of the path that exists. */
  locate(path: Path, at?: "key" | "value"): SourceLocation;
}

/** A string value that `${VAR}` substitution filled in. */
export interface Substituted {
  path: Path;
  /** The value as written in the file, references and all. */
  written: string;
  /** The values of the variables it names. */
  values: string[];
}

export interface ParsedFile {
  file: string;
  /** The documents that hold something; empty documents (comments only, a trailing `---`) are left out. */
  documents: SourceDocument[];
  issues: ManifestIssue[];
  /** A plain file's documents as the manifest cache keeps them; absent for the others (never cached). */
  stored?: () => StoredDocument[];
}

// The yaml library is loaded when a file needs it: most runs read plain files only, and loading it
// would add to every command's start-up.
const require = createRequire(import.meta.url);
let library: typeof Yaml | undefined;
export const yaml = (): typeof Yaml => {
  library ??= require("yaml") as typeof Yaml;
  return library;
};

// Aliases could expand a small file into a huge value ("billion laughs"); real manifests need few.
const MAX_ALIAS_COUNT = 100;

function keyMatches(key: unknown, segment: PathSegment): boolean {
  const value = yaml().isScalar(key) ? key.value : key;
  return String(value) === String(segment);
}

/** Walks the YAML node tree along `path`; stops at the deepest node that exists. */
function nodeAt(document: Document, path: Path, at: "key" | "value"): Node | null {
  let node = document.contents as Node | null;
  let found: Node | null = node;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i] as PathSegment;
    if (yaml().isAlias(node)) node = node.resolve(document) ?? null;
    if (yaml().isMap(node)) {
      const pair = node.items.find((item) => yaml().isPair(item) && keyMatches(item.key, segment));
      if (!pair) return found;
      const last = i === path.length - 1;
      if (last && at === "key" && pair.key) return pair.key as Node;
      // `key:` with nothing after it has a value node at the end of the line; the key reads better.
      const value = pair.value as Node | null;
      node = value && !(yaml().isScalar(value) && value.value === null) ? value : (pair.key as Node);
    } else if (yaml().isSeq(node) && typeof segment === "number") {
      const item = node.items[segment] as Node | undefined;
      if (!item) return found;
      node = item;
    } else {
      return found;
    }
    found = node;
  }
  return found;
}

function positionOf(file: string, counter: LineCounter, offset: number | undefined): SourceLocation {
  const { line, col } = counter.linePos(offset ?? 0);
  return { file, line, column: col };
}

/*
 * Messages of the yaml library that quote the source (a tag, an alias, a block header, an escape, a
 * token): the quoted text may be a secret written on that line, so each is replaced by what it
 * means. The others are fixed text. With prettyErrors off, no message holds an excerpt.
 */
const QUOTING: ReadonlyArray<[RegExp, string]> = [
  [
    /^(Unresolved tag|Could not resolve tag|Not a valid tag|The .* tag has no suffix|Verbatim tags)/,
    "unresolved tag: a value that starts with ! is a tag; quote the value",
  ],
  [
    / used for .* collection, but expects /,
    "a tag that does not fit its value; quote a value that starts with !",
  ],
  [/^Unresolved alias/, "unresolved alias: a value that starts with * is an alias; quote the value"],
  [
    /^Block scalar header includes extra characters/,
    "a | or > block header with text after it; quote the value",
  ],
  [
    /^Invalid escape sequence/,
    "invalid escape sequence in a double-quoted value; single-quote it, or write \\\\ for \\",
  ],
  [/^Plain value cannot start with/, "a value cannot start with this character; quote the value"],
  [
    /^Unexpected (?!, in |empty item in ).* in (flow map|flow sequence|flow collection|collection)$/,
    "unexpected text in a {…} or […] collection; quote the value",
  ],
  [/^Anchors and tags must be after the /, "anchors and tags must come after the indicator"],
  [/^(Unknown directive|Unsupported YAML version)/, "unknown % directive"],
  [
    /^(Unresolved plain scalar|Ordered maps must not include duplicate keys)/,
    "a value this reader can't resolve; quote it",
  ],
];

/** The first line of a yaml library message, with any quoted source replaced (see QUOTING). */
export function safeYamlMessage(message: string): string {
  // The parser's error tokens end with their source, JSON-quoted: `…in YAML stream: "}"`.
  const line = (message.split("\n")[0] ?? "").replace(/: ".*"$/, "");
  return QUOTING.find(([pattern]) => pattern.test(line))?.[1] ?? line;
}

/** `key: ${VAR}` unquoted inside `{ }` or `[ ]`: YAML reads `{` as the start of a mapping. */
const UNQUOTED_REFERENCE = /[{[,][^'"\n]*:[ \t]*[^'"\s,{}[\]]*\$\{/;

/**
 * DESIGN §4.1: a `${…}` in a flow collection must be quoted; the first error on a line that has
 * one says so (`hinted` holds the lines already told).
 */
function withHint(message: string, text: string, offset: number | undefined, hinted: Set<number>): string {
  const start = text.lastIndexOf("\n", (offset ?? 0) - 1) + 1;
  const end = text.indexOf("\n", offset ?? 0);
  if (hinted.has(start) || !UNQUOTED_REFERENCE.test(text.slice(start, end < 0 ? undefined : end)))
    return message;
  hinted.add(start);
  return `${message} (a \${VAR} inside { } or [ ] must be quoted: "\${VAR}")`;
}

function yamlIssue(
  file: string,
  text: string,
  counter: LineCounter,
  error: YAMLError,
  severity: "error" | "warning",
  hinted: Set<number>,
) {
  const message = withHint(safeYamlMessage(error.message) || error.code, text, error.pos[0], hinted);
  return {
    ...positionOf(file, counter, error.pos[0]),
    severity,
    path: "",
    message: `YAML: ${message}`,
  } satisfies ManifestIssue;
}

function sourceDocument(
  file: string,
  index: number,
  document: Document,
  counter: LineCounter,
  value: unknown,
): SourceDocument {
  return {
    file,
    index,
    value,
    substituted: new Map<string, Substituted>(),
    locate(path, at = "value") {
      const node = nodeAt(document, path, at);
      return positionOf(file, counter, node?.range?.[0] ?? document.range?.[0]);
    },
  };
}

/** A document of a plain file (yaml-events.ts). A class, not closures: a load keeps one per document. */
class FastSource implements SourceDocument {
  readonly file: string;
  readonly index: number;
  value: unknown;
  private readonly parsed: FastParsed;
  /** Made when first asked for: most documents have no `${VAR}`. */
  private paths: Map<string, Substituted> | undefined;

  constructor(file: string, parsed: FastParsed) {
    this.file = file;
    this.index = parsed.index;
    this.value = parsed.value;
    this.parsed = parsed;
  }

  get substituted(): Map<string, Substituted> {
    this.paths ??= new Map<string, Substituted>();
    return this.paths;
  }

  locate(path: Path, at: "key" | "value" = "value"): SourceLocation {
    return this.parsed.locate(path, at);
  }
}

/**
 * How the loader reads a YAML file: `parse`, and `restore` for a plain file's documents from the
 * manifest cache (a parser without it keeps no parse in the cache).
 */
export interface ManifestParser {
  parse(file: string, text: string): ParsedFile;
  restore?(file: string, text: string, stored: readonly StoredDocument[]): ParsedFile;
}

/** The `yaml` library alone, for every file: the plain variant of `fastParser`. */
export function parseWithYaml(file: string, text: string): ParsedFile {
  const unreadable = unreadableCharacter(file, text);
  if (unreadable) return { file, documents: [], issues: [unreadable] };
  return parsePrecise(file, text);
}

/**
 * Parses a multi-document YAML file (YAML 1.2, unique keys), keeping positions. Plain files take the
 * fast path (yaml-events.ts); the others, and every file with an error, are read by the `yaml`
 * library, whose messages users see.
 */
export function parseYamlFile(file: string, text: string): ParsedFile {
  const unreadable = unreadableCharacter(file, text);
  if (unreadable) return { file, documents: [], issues: [unreadable] };
  const fast = parseFast(file, text);
  if (fast) {
    const kept = fast.filter((parsed) => parsed.value !== null && parsed.value !== undefined);
    return {
      file,
      documents: kept.map((parsed) => new FastSource(file, parsed)),
      issues: [],
      stored: () => kept.map((parsed) => parsed.stored()),
    };
  }
  return parsePrecise(file, text);
}

/**
 * Characters YAML does not allow in a stream (C0 controls but tab and line breaks, NUL included, DEL
 * and C1 but NEL), and U+FFFD, what a byte that is not UTF-8 decodes to (a file saved as Latin-1):
 * a parser would keep them in a name, which then reaches the platform as written.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const UNREADABLE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffd]/;

/** The first character of the file YAML can't hold, as an issue at its line and column. */
function unreadableCharacter(file: string, text: string): ManifestIssue | undefined {
  const match = UNREADABLE.exec(text);
  if (!match) return undefined;
  const before = text.slice(0, match.index);
  const line = before.split("\n").length;
  const column = match.index - before.lastIndexOf("\n");
  const character = match[0];
  const message =
    character === "\ufffd"
      ? "is not UTF-8 (a byte here decodes to U+FFFD): save the file as UTF-8"
      : `holds the control character U+${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}, which YAML does not allow`;
  return { file, line, column, severity: "error", path: "", message };
}

/** A plain file's documents from the manifest cache, given the same text they were parsed from. */
export function restoreYamlFile(file: string, text: string, stored: readonly StoredDocument[]): ParsedFile {
  const documents = restoreFast(file, text, stored).map((parsed) => new FastSource(file, parsed));
  return { file, documents, issues: [] };
}

/** The loader's default: the fast path for plain files, whose parse the manifest cache keeps. */
export const fastParser: ManifestParser = { parse: parseYamlFile, restore: restoreYamlFile };

/** The `yaml` library for every file, and nothing kept in the cache: what the fast path saves is measured against it. */
export const yamlParser: ManifestParser = { parse: parseWithYaml };

/** The `yaml` library's reading: per-document errors and warnings, alias limits, node trees for positions. */
export function parsePrecise(file: string, text: string): ParsedFile {
  const counter = new (yaml().LineCounter)();
  const parsed = yaml().parseAllDocuments(text, {
    lineCounter: counter,
    prettyErrors: false,
    uniqueKeys: true,
    // The library's own warnings go to the process's stderr and quote keys; positioned ones come back as issues.
    logLevel: "error",
  });
  const documents: SourceDocument[] = [];
  const issues: ManifestIssue[] = [];
  const hinted = new Set<number>();
  // A stream that is only comments parses as an empty list, not as documents.
  const list = Array.isArray(parsed) ? parsed : [parsed];
  list.forEach((document, index) => {
    for (const warning of document.warnings)
      issues.push(yamlIssue(file, text, counter, warning, "warning", hinted));
    if (document.errors.length > 0) {
      for (const error of document.errors)
        issues.push(yamlIssue(file, text, counter, error, "error", hinted));
      return;
    }
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      issues.push({
        ...positionOf(file, counter, document.range?.[0]),
        severity: "error",
        path: formatPath([]),
        message: `YAML: ${safeYamlMessage((error as Error).message)}`,
      });
      return;
    }
    if (value === null || value === undefined) return;
    documents.push(sourceDocument(file, index, document as Document, counter, value));
  });
  return { file, documents, issues };
}
