import {
  CORE_SCHEMA,
  EVENT_ID,
  type Event,
  getScalarValue,
  parseEvents,
  SCALAR_STYLE,
  type ScalarEvent,
} from "js-yaml";
import type { SourceLocation } from "./errors.ts";
import type { Path, PathSegment } from "./path.ts";

/*
 * The fast path of manifest parsing. The `yaml` library keeps a node tree per document for
 * positions, which makes large manifests slow and memory-hungry; js-yaml's event parser reads the
 * same YAML 1.2 core schema faster and reports source offsets, so positions come from offsets kept
 * per document instead of trees. It stays while it saves at least 10% of a plan (DESIGN §5).
 *
 * Only plain files take this path: no tags, anchors, aliases, directives, complex or non-string keys,
 * and no errors. For anything else `parseFast` returns null and the caller reads the file with the
 * `yaml` library, whose messages, warnings and alias limits stay the ones users see. Positions match
 * that library's (test/manifest/yaml-paths.test.ts compares the two on every path of a corpus).
 */

/** A document of a plain file. */
export interface FastParsed {
  /** 0-based index of the document in its file, empty documents included. */
  readonly index: number;
  readonly value: unknown;
  locate(path: Path, at: "key" | "value"): SourceLocation;
  /** What the manifest cache keeps of it: enough to locate any path again with the file's text. */
  stored(): StoredDocument;
}

/** A document as the manifest cache stores it (manifest/cache.ts): plain data, no text. */
export interface StoredDocument {
  index: number;
  value: unknown;
  start: number;
  names: string[] | null;
  offsets: number[] | null;
  /** Its chunk's offsets in the file, and its event's index in that chunk's events, to parse them again for a deep path. */
  chunkStart: number;
  event: number;
  chunkEnd: number;
}

const { DOCUMENT, MAPPING, SEQUENCE, SCALAR, ALIAS, POP } = EVENT_ID;
const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
/** Plain keys that the core schema reads as something other than a string (the two libraries differ on those). */
const NOT_A_STRING =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9.].*|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN))?$/;
/** A block scalar's header (`|`, `>-`, `|2+ # comment`) at the end of its line. */
const BLOCK_HEADER = /[|>][0-9+-]*[ \t]*(?:#.*)?\r?$/;

/** Line starts of a text, for offset → line and column (1-based, as the `yaml` library counts). */
class Lines {
  // Typed: a file of 10,000 users has ~150,000 lines, kept for as long as its documents.
  private readonly starts: Uint32Array;
  constructor(text: string) {
    let count = 1;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count += 1;
    this.starts = new Uint32Array(count);
    let line = 1;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1))
      this.starts[line++] = at + 1;
  }
  position(file: string, offset: number): SourceLocation {
    const { starts } = this;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return { file, line: low + 1, column: offset - (starts[low] as number) + 1 };
  }
}

function isNullish(text: string, event: Event): boolean {
  if (event.type !== SCALAR || event.style !== SCALAR_STYLE.PLAIN) return false;
  return event.valueStart < 0 || NULLS.has(text.slice(event.valueStart, event.valueEnd));
}

/** Where a node starts, as the `yaml` library reports it: at the quote, at a block scalar's header. */
function offsetOf(text: string, event: Event): number {
  if (event.type === MAPPING || event.type === SEQUENCE) return event.start;
  if (event.type !== SCALAR || event.valueStart < 0) return -1;
  if (event.style === SCALAR_STYLE.SINGLE_QUOTED || event.style === SCALAR_STYLE.DOUBLE_QUOTED)
    return event.valueStart - 1;
  if (event.style === SCALAR_STYLE.LITERAL_BLOCK || event.style === SCALAR_STYLE.FOLDED_BLOCK) {
    // The content starts on the line after the header; the header is the last indicator on that line.
    const headerEnd = text.lastIndexOf("\n", event.valueStart - 1);
    const headerStart = text.lastIndexOf("\n", headerEnd - 1) + 1;
    const match = BLOCK_HEADER.exec(text.slice(headerStart, headerEnd));
    return match ? headerStart + match.index : event.valueStart;
  }
  return event.valueStart;
}

/** Index just after the node that starts at `at`. */
function after(events: Event[], at: number): number {
  const first = (events[at] as Event).type;
  if (first === SCALAR || first === ALIAS) return at + 1;
  let depth = 0;
  let index = at;
  do {
    const type = (events[index] as Event).type;
    if (type === MAPPING || type === SEQUENCE) depth += 1;
    else if (type === POP) depth -= 1;
    index += 1;
  } while (depth > 0);
  return index;
}

/** Walks the events of one document along `path`; the offset of the deepest part that exists. */
function locateInEvents(
  text: string,
  events: Event[],
  documentEvent: number,
  path: Path,
  at: "key" | "value",
): number {
  let node = documentEvent + 1;
  let found = node;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i] as PathSegment;
    const event = events[node] as Event;
    if (event.type === MAPPING) {
      let key = -1;
      let value = -1;
      for (let child = node + 1; (events[child] as Event).type !== POP; ) {
        const valueAt = after(events, child);
        if (getScalarValue(text, events[child] as ScalarEvent) === String(segment)) {
          key = child;
          value = valueAt;
          break;
        }
        child = after(events, valueAt);
      }
      if (key < 0) return offsetOf(text, events[found] as Event);
      if (i === path.length - 1 && at === "key") return offsetOf(text, events[key] as Event);
      // `key:` with nothing after it: the key reads better than the end of the line.
      node = isNullish(text, events[value] as Event) ? key : value;
    } else if (event.type === SEQUENCE && typeof segment === "number") {
      let child = node + 1;
      for (let n = 0; n < segment && (events[child] as Event).type !== POP; n++) child = after(events, child);
      if ((events[child] as Event).type === POP) return offsetOf(text, events[found] as Event);
      node = child;
    } else {
      return offsetOf(text, events[found] as Event);
    }
    found = node;
  }
  return offsetOf(text, events[found] as Event);
}

/** A run of whole documents, parsed on its own: at most one chunk's events are alive at a time. */
interface Chunk {
  /** Offset of the chunk in the file. */
  base: number;
  text: string;
  /** Parsed again, once, for a path deeper than one key. */
  events?: Event[];
}

/** What is kept per document: its root's offset and, for a mapping, its keys' and values' offsets (in the file). */
interface DocumentInfo {
  chunk: Chunk;
  /** Index of the document's event in its chunk's events. */
  event: number;
  start: number;
  /** A root mapping's keys, in order; documents written alike share one list. */
  names: string[] | null;
  /** Flat pairs, one per name: key offset, value offset (the key's when the value is empty or null). */
  offsets: number[] | null;
}

interface Frame {
  kind: typeof DOCUMENT | typeof MAPPING | typeof SEQUENCE;
  /** In a mapping: the next node is a key. */
  expectKey: boolean;
  /** The root mapping of a document: its keys are indexed. */
  info: DocumentInfo | null;
  /** What is being built: the document's value, a mapping's object, a sequence's array. */
  value: unknown;
  /** In a mapping, after a key: that key. */
  key: string;
}

/** Key names across a file: each name once, and one list for the documents whose keys are alike. */
class FileKeys {
  private readonly names = new Map<string, string>();
  private last: string[] = [];

  intern(name: string): string {
    const known = this.names.get(name);
    if (known !== undefined) return known;
    this.names.set(name, name);
    return name;
  }

  /** `names`, or the previous document's list when it holds the same names in the same order. */
  shared(names: string[]): string[] {
    const { last } = this;
    if (names.length === last.length && names.every((name, i) => name === last[i])) return last;
    this.last = names;
    return names;
  }
}

/** What one pass over a plain chunk's events gives: each document's index and its value. */
interface Scanned {
  documents: DocumentInfo[];
  values: unknown[];
}

/** Adds a finished node to the one being built; false for what the `yaml` library must read (a key written twice). */
function place(parent: Frame, value: unknown): boolean {
  if (parent.kind === DOCUMENT) parent.value = value;
  else if (parent.kind === SEQUENCE) (parent.value as unknown[]).push(value);
  else {
    const object = parent.value as Record<string, unknown>;
    const { key } = parent;
    if (Object.hasOwn(object, key)) return false;
    // As js-yaml builds it: an own property, not the prototype.
    if (key === "__proto__")
      Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });
    else object[key] = value;
  }
  return true;
}

/**
 * Checks that a chunk is plain (see above), indexes each document's top-level keys and builds each
 * document's value as js-yaml's `constructFromEvents` does with the core schema (for a plain chunk,
 * no tags, anchors or complex keys, that is: scalars resolved by the schema, mappings as objects,
 * sequences as arrays), in the same pass; null: not plain. `keys` interns key names across the file.
 */
function scan(chunk: Chunk, events: Event[], keys: FileKeys): Scanned | null {
  const { text, base } = chunk;
  const at = (event: Event) => {
    const offset = offsetOf(text, event);
    return offset < 0 ? offset : base + offset;
  };
  const documents: DocumentInfo[] = [];
  const values: unknown[] = [];
  const stack: Frame[] = [];
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as Event;
    if (event.type === POP) {
      const done = stack.pop() as Frame;
      if (done.info?.names && done.kind === MAPPING) done.info.names = keys.shared(done.info.names);
      if (done.kind === DOCUMENT) values.push(done.value);
      else if (!place(stack[stack.length - 1] as Frame, done.value)) return null;
      continue;
    }
    if (event.type === DOCUMENT) {
      if (event.directives.length > 0) return null;
      const info: DocumentInfo = { chunk, event: index, start: -1, names: null, offsets: null };
      documents.push(info);
      stack.push({ kind: DOCUMENT, expectKey: false, info, value: undefined, key: "" });
      continue;
    }
    if (event.type === ALIAS || event.tagStart >= 0 || event.anchorStart >= 0) return null;
    const parent = stack[stack.length - 1] as Frame;
    // An empty list item has no offset to point at; the yaml library places it after the dash.
    if (parent.kind === SEQUENCE && event.type === SCALAR && event.valueStart < 0) return null;
    if (parent.kind === DOCUMENT) {
      (parent.info as DocumentInfo).start = at(event);
    } else if (parent.kind === MAPPING) {
      if (parent.expectKey) {
        if (event.type !== SCALAR || event.valueStart < 0) return null;
        const name = getScalarValue(text, event);
        if (event.style === SCALAR_STYLE.PLAIN && NOT_A_STRING.test(name)) return null;
        if (parent.info?.names && parent.info.offsets) {
          parent.info.names.push(keys.intern(name));
          parent.info.offsets.push(at(event), -1);
        }
        parent.key = name;
        parent.expectKey = false;
        continue;
      }
      if (parent.info?.offsets) {
        const list = parent.info.offsets;
        list[list.length - 1] = isNullish(text, event) ? (list[list.length - 2] as number) : at(event);
      }
      parent.expectKey = true;
    }
    if (event.type === MAPPING || event.type === SEQUENCE) {
      const root = parent.kind === DOCUMENT && event.type === MAPPING ? (parent.info as DocumentInfo) : null;
      if (root) {
        root.names = [];
        root.offsets = [];
      }
      const value = event.type === MAPPING ? {} : [];
      stack.push({ kind: event.type, expectKey: true, info: root, value, key: "" });
    } else if (event.type === SCALAR) {
      const source = getScalarValue(text, event);
      // Plain scalars are resolved by the schema (null, booleans, numbers, else a string); quoted
      // and block scalars are strings.
      const value =
        event.style === SCALAR_STYLE.PLAIN ? CORE_SCHEMA.resolveImplicitScalarTag(source).value : source;
      if (!place(parent, value)) return null;
    }
  }
  return { documents, values };
}

/**
 * Small runs: their events die young. Under the launcher's small young generation, 64 KiB runs had
 * their events promoted to the old generation and parsed ~40% slower than 4–8 KiB runs.
 */
const CHUNK_SIZE = 8 * 1024;
/** A document marker: `---` at the start of a line. YAML forbids that line inside any scalar. */
const MARKER = /^---(?:[ \t\r]|$)/gm;

/** Cuts a file into runs of about CHUNK_SIZE characters, at document markers only. */
function chunksOf(text: string, size: number): Chunk[] {
  const chunks: Chunk[] = [];
  let start = 0;
  while (text.length - start > size) {
    MARKER.lastIndex = start + size;
    const marker = MARKER.exec(text);
    if (!marker) break;
    chunks.push({ base: start, text: text.slice(start, marker.index) });
    start = marker.index;
  }
  chunks.push({ base: start, text: start === 0 ? text : text.slice(start) });
  return chunks;
}

/** Reads a plain YAML file fast (see above); null when it is not plain or not valid. `chunkSize`: for tests. */
export function parseFast(file: string, text: string, chunkSize = CHUNK_SIZE): FastParsed[] | null {
  const documents: DocumentInfo[] = [];
  const values: unknown[] = [];
  const keys = new FileKeys();
  for (const chunk of chunksOf(text, chunkSize)) {
    let scanned: Scanned | null;
    try {
      scanned = scan(chunk, parseEvents(chunk.text, { filename: file }), keys);
    } catch {
      return null;
    }
    if (!scanned) return null;
    for (const info of scanned.documents) documents.push(info);
    for (const value of scanned.values) values.push(value);
  }
  const context: FileContext = { file, text, lines: undefined };
  return documents.map((info, index) => new FastDocument(index, values[index], info, context));
}

/** The documents `stored()` kept of a file, with that same file's text: as `parseFast` gave them. */
export function restoreFast(file: string, text: string, stored: readonly StoredDocument[]): FastParsed[] {
  const context: FileContext = { file, text, lines: undefined };
  const chunks = new Map<number, Chunk>();
  return stored.map((document) => {
    let chunk = chunks.get(document.chunkStart);
    if (!chunk) {
      chunk = { base: document.chunkStart, text: text.slice(document.chunkStart, document.chunkEnd) };
      chunks.set(document.chunkStart, chunk);
    }
    const info: DocumentInfo = {
      chunk,
      event: document.event,
      start: document.start,
      names: document.names,
      offsets: document.offsets,
    };
    return new FastDocument(document.index, document.value, info, context);
  });
}

/** What the documents of one file share, for positions. */
interface FileContext {
  file: string;
  text: string;
  /** Made on the first position asked for. */
  lines: Lines | undefined;
}

// A class, not closures: a load keeps one per document until its environment is built.
class FastDocument {
  readonly index: number;
  readonly value: unknown;
  private readonly info: DocumentInfo;
  private readonly context: FileContext;

  constructor(index: number, value: unknown, info: DocumentInfo, context: FileContext) {
    this.index = index;
    this.value = value;
    this.info = info;
    this.context = context;
  }

  locate(path: Path, at: "key" | "value"): SourceLocation {
    const { info } = this;
    if (path.length === 0) return this.position(info.start);
    if (path.length > 1 || !info.names || !info.offsets) return this.position(this.deep(path, at));
    const index = info.names.indexOf(String(path[0]));
    if (index >= 0) return this.position(info.offsets[2 * index + (at === "key" ? 0 : 1)] as number);
    return this.position(info.start);
  }

  stored(): StoredDocument {
    const { info } = this;
    return {
      index: this.index,
      value: this.value,
      start: info.start,
      names: info.names,
      offsets: info.offsets,
      chunkStart: info.chunk.base,
      event: info.event,
      chunkEnd: info.chunk.base + info.chunk.text.length,
    };
  }

  private position(offset: number): SourceLocation {
    const { context } = this;
    context.lines ??= new Lines(context.text);
    return context.lines.position(context.file, Math.max(offset, 0));
  }

  private deep(path: Path, at: "key" | "value"): number {
    const { chunk } = this.info;
    chunk.events ??= parseEvents(chunk.text, { filename: this.context.file });
    const offset = locateInEvents(chunk.text, chunk.events, this.info.event, path, at);
    return offset < 0 ? this.info.start : chunk.base + offset;
  }
}
