import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as wire from "../src/wire/index.ts";

/*
 * One home per rule: a rule written twice drifts apart. Each check scans the modules that ship
 * (src/**, colocated tests left out) for a second definition of what has one home.
 */

const SRC = new URL("../src/", import.meta.url).pathname;

function shipped(): Array<{ file: string; text: string }> {
  return readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .map((file) => file.split("\\").join("/"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => ({ file, text: readFileSync(join(SRC, file), "utf8") }));
}

/** Files outside `home` where `pattern` matches. */
function elsewhere(pattern: RegExp, home: (file: string) => boolean): string[] {
  return shipped()
    .filter(({ file, text }) => !home(file) && pattern.test(text))
    .map(({ file }) => file);
}

describe("one home per rule", () => {
  it("each schema of the interface is written in src/wire only (others derive from it)", () => {
    const names = Object.entries(wire)
      .filter(([, value]) => value instanceof z.ZodType)
      .map(([name]) => name);
    expect(names).toContain("ContentRead");
    const written = new RegExp(`export const (?:${names.join("|")}) =\\s*z\\.`);
    expect(elsewhere(written, (file) => file.startsWith("wire/"))).toEqual([]);
  });
});

describe("one prune pass", () => {
  it("no kind's planner matches the exclude globs itself: src/plan/prune.ts does", () => {
    expect(elsewhere(/globMatcher\(/, (file) => !file.startsWith("plan/kinds/"))).toEqual([]);
  });
});

describe("one home for the password rules", () => {
  it("the character classes are written in src/wire/password-rules.ts only", () => {
    expect(elsewhere(/\\p\{Lu\}|\\p\{Nd\}/, (file) => file === "wire/password-rules.ts")).toEqual([]);
  });
});

describe("one home for zip safety", () => {
  it("the names, links and bounds any zip is held to are checked in src/io/zip-safety.ts only", () => {
    const rule = /0o120000|S_IFLNK|\^\[A-Za-z\]:/;
    expect(elsewhere(rule, (file) => file === "io/zip-safety.ts")).toEqual([]);
  });
});

describe("one home for a promotion's snapshot", () => {
  it("the snapshot's steps are made in src/plan/kinds/package-snapshot.ts only (snapshotSteps), for a promotion and a release", () => {
    const rule = /\(egp snapshot\)|makeStep\(\s*\w+,\s*"package\.snapshot"/;
    expect(elsewhere(rule, (file) => file === "plan/kinds/package-snapshot.ts")).toEqual([]);
  });
});

describe("environment rules derive from the kind registry", () => {
  it("src/manifest/rules.ts names no kind: each kind brings its own rules, references and built-ins", async () => {
    const { BUILT_IN_DOCUMENT_KINDS } = await import("../src/manifest/kinds/index.ts");
    const KINDS = BUILT_IN_DOCUMENT_KINDS.all;
    const text = readFileSync(join(SRC, "manifest/rules.ts"), "utf8");
    const named = KINDS.map((kind) => kind.kind).filter((name) => text.includes(`"${name}"`));
    expect(KINDS.length).toBeGreaterThan(2);
    expect(named).toEqual([]);
  });
});

describe("the ops a change may run derive from the kind registry", () => {
  it("no module but a kind's own names a list of its ops or of their verbs (each kind's `actions` says which run)", async () => {
    const STEP_OPS = (await import("../src/plan/kinds/steps.ts")).BUILT_IN_STEPS.ops;
    const verbs = [...new Set(STEP_OPS.map((op) => op.slice(op.indexOf(".") + 1)))];
    const quoted = `"(?:${[...STEP_OPS, ...verbs].map((name) => name.replace(/[.-]/g, "\\$&")).join("|")})"`;
    // Two of them side by side in a list: a second list of what some change runs.
    const list = new RegExp(`\\[\\s*${quoted}\\s*,\\s*${quoted}`);
    const home = (file: string) =>
      file.startsWith("plan/kinds/") || file.startsWith("apply/ops/") || file === "plan/actions.ts";
    expect(verbs).toContain("fetch");
    expect(elsewhere(list, home)).toEqual([]);
  });
});
