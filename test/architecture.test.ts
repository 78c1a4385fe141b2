import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/*
 * DESIGN §1: folders follow the pipeline and data flows one way. Every import of every module that
 * ships (src/**\/*.ts but the colocated *.test.ts, which the build leaves out) is checked against
 * the table below, runtime and type imports alike. A module is loaded at runtime unless the whole
 * statement is `import type` / `export type`: `import { type A } from` still loads its module.
 */

const SRC = new URL("../src/", import.meta.url).pathname;

type Stage =
  | "errors"
  | "wire"
  | "schema"
  | "io"
  | "store"
  | "client"
  | "emulator"
  | "manifest"
  | "state"
  | "plan"
  | "apply"
  | "export"
  | "compose"
  | "release"
  | "cli"
  | "index.ts";

interface Rule {
  /** Stages it may import at runtime (and so for types too). */
  runtime: readonly Stage[];
  /** Stages it may import types from only. */
  types?: readonly Stage[];
  /** When given, the only npm packages it may import. */
  packages?: readonly string[];
  /** When given, the only node: modules it may import. */
  node?: readonly string[];
}

const ABOVE_CLI: readonly Stage[] = [
  "wire",
  "schema",
  "io",
  "store",
  "client",
  "emulator",
  "manifest",
  "state",
  "plan",
  "apply",
  "export",
  "compose",
  "release",
];

/**
 * Stages every stage may import, each a leaf that imports nothing of ours: the error family (one
 * base, EgpError, and one table of codes), so that any stage names its failures from the one table
 * without importing another stage.
 */
const EVERY_STAGE_MAY_IMPORT: readonly Stage[] = ["errors"];

/**
 * DESIGN §1's "may import" column, each rule with its reason. Where this table is wider than
 * DESIGN's, the reason says why (schema and errors are leaves DESIGN's table does not list).
 */
const MAY_IMPORT: Record<Stage, Rule> = {
  // A leaf: the error family, which every stage throws from; nothing of ours, no package.
  errors: { runtime: [], packages: [], node: [] },
  // The interface's shapes as zod schemas, and its own pure rules (the password rules) that the
  // planner checks offline and the emulator enforces: one home for both.
  wire: { runtime: [], packages: ["zod"] },
  // A leaf of zod helpers that more than one stage parses with (the as-is shortcut, kept by the
  // speed machinery's measurement, docs/performance.md).
  schema: { runtime: [], packages: ["zod"] },
  // File bodies, locks and private folders, shared by the client and the emulator: nothing of ours.
  io: { runtime: [] },
  // The release store's bytes (a folder or an OCI registry), over io's private files.
  store: { runtime: ["io"] },
  // The typed REST client: the interface's shapes (wire), file bodies (io), the parse shortcut for
  // answers (schema). Never the emulator: the two meet only over HTTP.
  client: { runtime: ["wire", "io", "schema"] },
  // The platform's stand-in: the interface's shapes and file bodies. Never the client.
  emulator: { runtime: ["wire", "io"] },
  // Documents and environment files: the parse shortcut (schema), the cache's private folder (io),
  // and wire's Secret, the one wrapper of a value never shown (passwords, `${VAR}` values).
  manifest: { runtime: ["schema", "io", "wire"], packages: ["zod", "yaml"] },
  // The live reads: through the client, in the interface's shapes; what to read depends on the
  // desired state, whose type only it needs.
  state: { runtime: ["client", "wire"], types: ["manifest"] },
  // Pure: no I/O. zod checks a plan file on load against each op's input schema; wire holds the
  // interface's rules it checks offline; desired and live states are its input types.
  plan: {
    runtime: ["wire"],
    types: ["manifest", "state"],
    packages: ["zod", "safe-stable-stringify"],
    node: ["node:crypto"],
  },
  // Runs a plan's steps through the client; the planner's model (plan) and reads (state); io for
  // the journal, the lock and the artifacts; store for a release's bytes. The desired state's type
  // (secrets, limits, the prune policy) and wire's types of what it sends; no wire schema: a package
  // file is opaque to apply.
  apply: { runtime: ["client", "plan", "state", "io", "store"], types: ["manifest", "wire"] },
  // Live state to documents: the live state (state), the documents' schemas (manifest) and the
  // interface's own value tables (wire: contact subtypes).
  export: { runtime: ["state", "manifest", "wire"] },
  // The composer reads the manifests and the live state and calls the pure stages on them: the
  // planner (plan), the exporter (export) and the comparison (plan); the caller's `open` brings the
  // clients (client: `httpConnections` makes them for environments over HTTP), and the release
  // store holds what a release's promotion installs (store). It assembles each kind from its
  // stages' parts (compose/kinds.ts), ops included (apply). It never starts an emulator: that is the
  // CLI's, for embedded environments.
  compose: { runtime: ["manifest", "state", "plan", "apply", "export", "client", "store"] },
  // The release lifecycle and its governance, and the governed entry points (apply, rollback,
  // release create/reject) that the CLI and the library both call: it wraps the composer's plans and
  // the apply's run in their gates, audit records and notifications, so it sits above compose,
  // apply and store, and reads the documents (manifest), the planner's model (plan), the live
  // package parts a rollback compares (state), the client's types and errors (client), the private
  // files (io) and the interface's shapes (wire) as the stages below it do.
  release: {
    runtime: ["compose", "apply", "store", "manifest", "plan", "state", "client", "io", "wire"],
  },
  // The CLI wires every stage, the release stage's entry points included.
  cli: { runtime: ABOVE_CLI },
  // The library's public API; like everything else, it never imports cli. It exports the release
  // stage's governed entry points, never the apply stage's executor.
  "index.ts": { runtime: ABOVE_CLI },
};

/**
 * Imports outside a stage's row, one per (file, what it imports), each with why it is kept. An
 * exception that is no longer needed fails the last test, so the list only shrinks.
 */
const KNOWN_EXCEPTIONS: ReadonlyArray<{ file: string; imports: string; why: string }> = [
  // js-yaml's event parser: the manifests' fast path beside the `yaml` library, which DESIGN §1's
  // manifest row names alone; kept because it saves more than 10% of a plan (docs/performance.md).
  { file: "manifest/yaml-events.ts", imports: "js-yaml", why: "the parse fast path earns its keep" },
];

interface Import {
  /** Relative to src/. */
  file: string;
  specifier: string;
  typeOnly: boolean;
}

/** The source with comments blanked and strings kept, so that commented-out imports don't count. */
function withoutComments(source: string): string {
  return source.replace(
    /\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`/g,
    (token) => (token.startsWith("/") ? token.replace(/[^\n]/g, " ") : token),
  );
}

const IMPORT =
  /(?:^|[;}\n])[ \t]*(?:import|export)[ \t]+(type[ \t]+)?(?:[\w$*{},\s]*?[ \t\n]from[ \t]*)?"([^"]+)"|(typeof[ \t]+)?\b(?:import|require)\([ \t]*"([^"]+)"[ \t]*\)/g;

/** Every import, export-from, dynamic import() and require() of a TypeScript source. */
function importsIn(file: string, source: string): Import[] {
  const found: Import[] = [];
  for (const match of withoutComments(source).matchAll(IMPORT)) {
    const [, typeKeyword, staticFrom, typeOf, dynamicFrom] = match;
    const specifier = (staticFrom ?? dynamicFrom) as string;
    found.push({ file, specifier, typeOnly: Boolean(typeKeyword ?? typeOf) });
  }
  return found;
}

function stageOf(path: string): Stage | "outside" {
  const inSrc = relative(SRC, path).split("\\").join("/");
  if (inSrc.startsWith("..")) return "outside";
  if (inSrc === "index.ts") return "index.ts";
  return inSrc.split("/")[0] as Stage;
}

function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

interface Finding {
  file: string;
  imports: string;
  message: string;
}

/** What breaks the table, one finding per import. */
function findings(imports: readonly Import[]): Finding[] {
  const found: Finding[] = [];
  for (const { file, specifier, typeOnly } of imports) {
    const stage = stageOf(join(SRC, file)) as Stage;
    const rule = MAY_IMPORT[stage];
    const kind = typeOnly ? "types from " : "";
    if (specifier.startsWith(".")) {
      const target = stageOf(resolve(dirname(join(SRC, file)), specifier));
      if (target === stage) continue;
      const allowed =
        target !== "outside" &&
        target !== "cli" &&
        (rule.runtime.includes(target) ||
          EVERY_STAGE_MAY_IMPORT.includes(target) ||
          (typeOnly && (rule.types ?? []).includes(target)));
      if (!allowed)
        found.push({ file, imports: target, message: `${stage} imports ${kind}${target} (${specifier})` });
    } else if (specifier.startsWith("node:")) {
      if (rule.node && !rule.node.includes(specifier))
        found.push({ file, imports: specifier, message: `${stage} imports ${specifier}` });
    } else {
      const name = packageOf(specifier);
      if (rule.packages && !rule.packages.includes(name))
        found.push({ file, imports: name, message: `${stage} imports the package ${name}` });
    }
  }
  return found;
}

function shippedModules(): Import[] {
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .map((file) => file.split("\\").join("/"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));
  return files.flatMap((file) => importsIn(file, readFileSync(join(SRC, file), "utf8")));
}

const isKnown = (finding: Finding) =>
  KNOWN_EXCEPTIONS.some((known) => known.file === finding.file && known.imports === finding.imports);

describe("the import parser", () => {
  it("finds static, type-only, re-exported, dynamic and required imports, not commented ones", () => {
    const source = [
      'import { a } from "./a.ts";',
      'import type { B } from "./b.ts";',
      'import { type C } from "./c.ts";',
      "import {",
      "  d,",
      "  type E,",
      '} from "../d.ts";',
      'import "./side-effect.ts";',
      'export { f } from "./f.ts";',
      'export type { G } from "./g.ts";',
      'export * from "./h.ts";',
      '// import { x } from "./commented.ts";',
      '/* import { y } from "./block.ts"; */',
      'const text = "/* not a comment";',
      'const later = await import("./later.ts");',
      'const lazy = (): typeof import("yauzl") => require("yauzl");',
      'const words = "import nothing from here";',
    ].join("\n");
    expect(importsIn("x.ts", source).map(({ specifier, typeOnly }) => [specifier, typeOnly])).toEqual([
      ["./a.ts", false],
      ["./b.ts", true],
      ["./c.ts", false],
      ["../d.ts", false],
      ["./side-effect.ts", false],
      ["./f.ts", false],
      ["./g.ts", true],
      ["./h.ts", false],
      ["./later.ts", false],
      ["yauzl", true],
      ["yauzl", false],
    ]);
  });

  it("reads every module under src", () => {
    const imports = shippedModules();
    expect(new Set(imports.map((i) => stageOf(join(SRC, i.file)))).size).toBe(Object.keys(MAY_IMPORT).length);
    expect(imports.filter((i) => i.file === "client/client.ts").length).toBeGreaterThan(5);
  });
});

describe("DESIGN §1: each stage imports only what its row allows", () => {
  it("the table catches what it must", () => {
    const sample: Import[] = [
      { file: "client/x.ts", specifier: "../emulator/store.ts", typeOnly: false },
      { file: "emulator/x.ts", specifier: "../client/index.ts", typeOnly: true },
      { file: "plan/x.ts", specifier: "../manifest/index.ts", typeOnly: false },
      { file: "plan/x.ts", specifier: "../manifest/index.ts", typeOnly: true },
      { file: "plan/x.ts", specifier: "node:fs", typeOnly: false },
      { file: "state/x.ts", specifier: "../plan/compare.ts", typeOnly: false },
      { file: "apply/x.ts", specifier: "../cli/errors.ts", typeOnly: true },
      { file: "export/x.ts", specifier: "../client/index.ts", typeOnly: false },
      { file: "cli/x.ts", specifier: "../export/index.ts", typeOnly: false },
      { file: "wire/x.ts", specifier: "undici", typeOnly: false },
      { file: "compose/x.ts", specifier: "../emulator/index.ts", typeOnly: false },
      { file: "compose/x.ts", specifier: "../cli/connect.ts", typeOnly: true },
      { file: "apply/x.ts", specifier: "../release/verified.ts", typeOnly: false },
      { file: "compose/x.ts", specifier: "../release/release-gate.ts", typeOnly: true },
      { file: "release/x.ts", specifier: "../emulator/index.ts", typeOnly: false },
      { file: "release/x.ts", specifier: "../cli/errors.ts", typeOnly: false },
      { file: "errors/x.ts", specifier: "../wire/index.ts", typeOnly: true },
      { file: "errors/x.ts", specifier: "zod", typeOnly: false },
      { file: "wire/x.ts", specifier: "../errors/index.ts", typeOnly: false },
    ];
    expect(findings(sample).map((finding) => finding.message)).toEqual([
      "client imports emulator (../emulator/store.ts)",
      "emulator imports types from client (../client/index.ts)",
      "plan imports manifest (../manifest/index.ts)",
      "plan imports node:fs",
      "state imports plan (../plan/compare.ts)",
      "apply imports types from cli (../cli/errors.ts)",
      "export imports client (../client/index.ts)",
      "wire imports the package undici",
      "compose imports emulator (../emulator/index.ts)",
      "compose imports types from cli (../cli/connect.ts)",
      "apply imports release (../release/verified.ts)",
      "compose imports types from release (../release/release-gate.ts)",
      "release imports emulator (../emulator/index.ts)",
      "release imports cli (../cli/errors.ts)",
      "errors imports types from wire (../wire/index.ts)",
      "errors imports the package zod",
    ]);
  });

  it("no new violation: every import follows the table or is a known exception", () => {
    const unexpected = findings(shippedModules()).filter((finding) => !isKnown(finding));
    expect(unexpected.map((finding) => `${finding.file}: ${finding.message}`)).toEqual([]);
  });

  it("every known exception is still needed (remove it from the list once fixed)", () => {
    const all = findings(shippedModules());
    const stale = KNOWN_EXCEPTIONS.filter(
      (known) => !all.some((finding) => finding.file === known.file && finding.imports === known.imports),
    );
    expect(stale).toEqual([]);
  });
});

/** The built-in kinds, as the manifest stage has one module per kind. */
const KIND_NAMES = readdirSync(join(SRC, "manifest/kinds"))
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
  .map((file) => file.slice(0, -".ts".length))
  .filter((name) => name !== "index" && name !== "kind");

/** The kind a module of a `kinds/` or `ops/` folder belongs to (`user-steps.ts`: user); none when shared. */
function kindOfModule(path: string): string | undefined {
  const inSrc = relative(SRC, path).split("\\").join("/");
  const match = /^(?:[a-z]+\/kinds|apply\/ops)\/([a-z-]+)\.ts$/.exec(inSrc);
  if (!match) return undefined;
  const name = (match[1] as string).replace(/-(?:steps|refusals)$/, "");
  return KIND_NAMES.includes(name) ? name : undefined;
}

describe("DESIGN §1: a kind is its own files", () => {
  it("the rule knows the kinds and which modules are shared", () => {
    expect(KIND_NAMES).toEqual(expect.arrayContaining(["user", "security-parameter", "package"]));
    expect(kindOfModule(join(SRC, "plan/kinds/user-steps.ts"))).toBe("user");
    expect(kindOfModule(join(SRC, "apply/ops/security-parameter.ts"))).toBe("security-parameter");
    expect(kindOfModule(join(SRC, "plan/kinds/kind.ts"))).toBeUndefined();
    expect(kindOfModule(join(SRC, "plan/plan-changes.ts"))).toBeUndefined();
  });

  it("a kind's module never imports another kind's planner, ops or other module", () => {
    const crossing = shippedModules().flatMap(({ file, specifier }) => {
      const from = kindOfModule(join(SRC, file));
      if (!from || !specifier.startsWith(".")) return [];
      const to = kindOfModule(resolve(dirname(join(SRC, file)), specifier));
      return to && to !== from ? [`${file} imports ${specifier}`] : [];
    });
    expect(crossing).toEqual([]);
  });
});

/** The source with comments and string contents blanked: what is left is code. */
function codeOnly(source: string): string {
  return withoutComments(source).replace(
    /"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`/g,
    (token) => token.replace(/[^\n]/g, " "),
  );
}

const NEVER_CAST = /\bas\s+never\b/;

/** Lines of shipped modules that cast to `never`, outside comments and strings. */
function neverCasts(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .map((file) => file.split("\\").join("/"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .flatMap((file) =>
      codeOnly(readFileSync(join(SRC, file), "utf8"))
        .split("\n")
        .flatMap((line, index) => (NEVER_CAST.test(line) ? [`${file}:${index + 1}`] : [])),
    );
}

describe("one contract per kind and per stage", () => {
  it("the cast finder sees a cast to never and skips one in a comment or a string", () => {
    expect(NEVER_CAST.test(codeOnly("f(value as never);"))).toBe(true);
    expect(NEVER_CAST.test(codeOnly("// a value as never seen"))).toBe(false);
    expect(NEVER_CAST.test(codeOnly('describe("a release as never promoted");'))).toBe(false);
  });

  it("no shipped module casts to never: a cast between stages means a type contract is missing", () => {
    expect(neverCasts()).toEqual([]);
  });
});

/** Each folder's import graph among its own modules (type imports too: a circle of types is still one). */
function roomGraphs(): Map<string, Map<string, string[]>> {
  const rooms = new Map<string, Map<string, string[]>>();
  for (const { file, specifier } of shippedModules()) {
    const room = file.includes("/") ? (file.split("/")[0] as string) : "";
    if (!room || !specifier.startsWith(".")) continue;
    const target = relative(SRC, resolve(dirname(join(SRC, file)), specifier))
      .split("\\")
      .join("/");
    if (target.split("/")[0] !== room || !target.endsWith(".ts")) continue;
    const graph = rooms.get(room) ?? new Map<string, string[]>();
    rooms.set(room, graph);
    graph.set(file, [...(graph.get(file) ?? []), target]);
  }
  return rooms;
}

/** The circles of a graph: its strongly connected parts of more than one module (Tarjan), sorted. */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next))
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      onStack.delete(top);
      part.push(top);
      if (top === node) break;
    }
    if (part.length > 1) found.push(part.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

describe("no import circles inside a folder", () => {
  it("the circle finder finds a circle and its members, and nothing in a chain", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts", "d.ts"]],
      ["d.ts", []],
    ]);
    expect(circlesOf(graph)).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(circlesOf(new Map([["a.ts", ["b.ts"]]]))).toEqual([]);
  });

  it("no module of a folder imports, through others, a module that imports it", () => {
    const circles = [...roomGraphs().values()].flatMap(circlesOf).map((circle) => circle.join(" "));
    expect(circles).toEqual([]);
  });
});

describe("the CLI wires", () => {
  const commands = readdirSync(join(SRC, "cli/commands"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => ({ file, source: readFileSync(join(SRC, "cli/commands", file), "utf8") }));

  it("each command module stays short: what is longer decides something, and belongs to its stage", () => {
    const long = commands
      .map(({ file, source }) => ({ file, lines: source.trimEnd().split("\n").length }))
      .filter(({ lines }) => lines > 120);
    expect(long).toEqual([]);
  });

  it("no command decides what a run's outcome means: apply/verdict.ts says it, the CLI maps it to an exit", () => {
    const deciding = commands.filter(({ source }) => /\boutcome\.result\b/.test(codeOnly(source)));
    expect(deciding.map(({ file }) => file)).toEqual([]);
  });
});

describe("no narratives", () => {
  const ROOT = new URL("../", import.meta.url).pathname;
  /** A line that tells the story of an issue or of a working session instead of saying why. */
  const NARRATIVE = /\b[Ii]ssues? #?\d+|\bthe issue's\b|\bthis (?:session|turn)\b/;

  function linesOf(folder: string, ends: readonly string[]): string[] {
    return (
      readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
        .map((file) => file.split("\\").join("/"))
        // This file names the stories it looks for.
        .filter((file) => ends.some((end) => file.endsWith(end)) && !file.endsWith("architecture.test.ts"))
        .flatMap((file) =>
          readFileSync(join(ROOT, folder, file), "utf8")
            .split("\n")
            .flatMap((line, index) => (NARRATIVE.test(line) ? [`${folder}/${file}:${index + 1}`] : [])),
        )
    );
  }

  it("the finder knows a story from a reason", () => {
    expect(NARRATIVE.test("/* Issue 17: deleting one object on purpose */")).toBe(true);
    expect(NARRATIVE.test("which this session did not have")).toBe(true);
    expect(NARRATIVE.test("// the next check closes the issue, with a comment saying why")).toBe(false);
  });

  it("no test, doc or test module tells one", () => {
    const found = [...linesOf("test", [".ts"]), ...linesOf("docs", [".md"]), ...linesOf("src", [".test.ts"])];
    expect(
      found.concat(NARRATIVE.test(readFileSync(join(ROOT, "README.md"), "utf8")) ? ["README.md"] : []),
    ).toEqual([]);
  });
});
