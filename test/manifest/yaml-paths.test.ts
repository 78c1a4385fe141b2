import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Path } from "../../src/manifest/path.ts";
import { parseFast } from "../../src/manifest/yaml-events.ts";
import { parsePrecise, parseYamlFile } from "../../src/manifest/yaml-source.ts";

/*
 * The fast path (js-yaml events) must read what the precise path (the `yaml` library) reads: the
 * same documents, the same values, and the same position for every path, key or value. The corpus is
 * the repository's own YAML files and hand-written cases of each construct manifests use.
 */

const root = new URL("../..", import.meta.url).pathname;
const repositoryFiles = execFileSync("git", ["ls-files", "*.yaml", "*.yml"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter(Boolean);

const CASES: Record<string, string> = {
  plain: "kind: User\nuserName: jdoe\nfirstName: Jane\n",
  quoted: "kind: User\nuserName: 'jdoe'\nfirstName: \"Jane \\u00e9\"\nlastName: 'O''Brien'\n",
  empty: "kind: User\nnote:\ntilde: ~\nnothing: null\nflow: { a: , b: ~ }\nafter: x\n",
  nested: [
    "kind: User",
    "contacts:",
    "  - type: email",
    "    value: jdoe@example.com",
    "  - { type: phone, subType: mobile, value: '+1 555' }",
    "  - [a, b, [c, d]]",
    "roles: [General User, 'Admin']",
    "groups:",
    "- Everyone",
    "- Administrators",
    "",
  ].join("\n"),
  blocks: [
    "kind: Package",
    "description: |",
    "  first line",
    "  second line",
    "folded: >- # a comment | with a bar",
    "  folded",
    "  text",
    "keep: |+",
    "  kept",
    "",
    "indicator: |2",
    "    indented",
    "a|b: |",
    "  odd key",
    "",
  ].join("\n"),
  multiline: 'kind: User\ntitle: a long\n  plain scalar\n  over lines\nquoted: "one\n  two"\nafter: 1\n',
  flow: "{kind: User, userName: jdoe, contacts: [{type: email, value: x@y.z}], groups: [a, b]}\n",
  documents: [
    "# leading comment",
    "kind: User",
    "userName: a",
    "---",
    "# only a comment",
    "---",
    "kind: User",
    "userName: b",
    "...",
    "--- {kind: User, userName: c}",
    "---",
    "  kind: User",
    "  userName: d",
    "---",
    "",
  ].join("\n"),
  crlf: "kind: User\r\nuserName: jdoe\r\ncontacts:\r\n  - type: email\r\n    value: a@b.c\r\n",
  scalars:
    "kind: X\nint: 12\nhex: 0x1F\noct: 0o17\nfloat: 1.5e3\nbool: True\nyes: yes\ndate: 2026-01-01\nweird: '12'\n",
  comments: "kind: User # trailing\n# between\nuserName: jdoe   # spaces\n\n\nfirstName: J\n",
  rootList: "- kind: User\n  userName: a\n- kind: User\n  userName: b\n",
  rootScalar: "just text\n",
  bom: "\uFEFFkind: User\nuserName: jdoe\n",
  tabs: "kind: User\t# tab before a comment\nuserName:\tjdoe\n",
  unicode: "kind: User\nfirstName: Zoë\nlastName: 山田\nemoji: '🙂'\nafter: x\n",
};

function paths(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) out.push(...paths(item, [...prefix, index]));
    out.push([...prefix, value.length + 3]);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) out.push(...paths(item, [...prefix, key]));
    out.push([...prefix, "absent"], [...prefix, "absent", 0]);
  } else {
    out.push([...prefix, "below"]);
  }
  return out;
}

function compare(name: string, text: string, chunkSize?: number): number {
  const precise = parsePrecise(name, text);
  const fast = parseFast(name, text, chunkSize);
  expect(fast, `${name} should take the fast path`).not.toBeNull();
  const kept = (fast ?? []).filter((document) => document.value !== null && document.value !== undefined);
  expect(kept.map((d) => d.index)).toEqual(precise.documents.map((d) => d.index));
  expect(kept.map((d) => d.value)).toEqual(precise.documents.map((d) => d.value));
  let compared = 0;
  precise.documents.forEach((document, n) => {
    const other = kept[n];
    for (const path of paths(document.value)) {
      for (const at of ["key", "value"] as const) {
        expect(other?.locate(path, at), `${name} #${document.index} ${JSON.stringify(path)} ${at}`).toEqual(
          document.locate(path, at),
        );
        compared += 1;
      }
    }
  });
  return compared;
}

describe("the fast YAML path reads as the yaml library does", () => {
  it.each(Object.entries(CASES))("%s", (name, text) => {
    expect(compare(`${name}.yaml`, text)).toBeGreaterThan(0);
  });

  // Large files are parsed in runs of documents cut at `---` lines; a size of 1 cuts at every one.
  it.each(Object.entries(CASES))("%s, cut at every document marker", (name, text) => {
    expect(compare(`${name}.yaml`, text, 1)).toBeGreaterThan(0);
  });

  it("a file of a thousand users, in runs of documents", () => {
    const users = Array.from({ length: 1000 }, (_, i) =>
      [`kind: User`, `userName: 'user${i}'`, `contacts:`, `  - { type: email, value: u${i}@x.y }`].join("\n"),
    );
    const text = ["# leading comment", ...users].join("\n---\n");
    expect(compare("users.yaml", text, 4096)).toBeGreaterThan(0);
  });

  it.each(repositoryFiles)("%s", (file) => {
    expect(compare(file, readFileSync(join(root, file), "utf8"))).toBeGreaterThan(0);
  });
});

describe("files the fast path leaves to the yaml library", () => {
  it.each([
    ["an alias", "a: &x 1\nb: *x\n"],
    ["an anchor", "a: &x 1\n"],
    ["a tag", "a: !!str 12\n"],
    ["a directive", "%YAML 1.2\n---\na: 1\n"],
    ["a complex key", "? [a, b]\n: c\n"],
    ["a null key", "~: x\n"],
    ["a number key", "1: x\n"],
    ["an empty list item", "a:\n  -\n  - b\n"],
    ["a duplicate key", "a: 1\na: 2\n"],
    ["a syntax error", "a: [1, 2\n"],
  ])("%s", (_name, text) => {
    expect(parseFast("x.yaml", text)).toBeNull();
    // and parseYamlFile still reads it, with the yaml library's own messages
    const parsed = parseYamlFile("x.yaml", text);
    expect(parsed.documents.length + parsed.issues.length).toBeGreaterThan(0);
  });
});
