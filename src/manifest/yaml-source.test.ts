// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { describe, expect, it } from "vitest";
import { formatManifestError } from "./errors.ts";
import { formatPath } from "./path.ts";
import { parsePrecise, parseYamlFile, safeYamlMessage } from "./yaml-source.ts";

const TEXT = [
  "# a comment", // 1
  "kind: User", // 2
  "userName: jdoe", // 3
  "contacts:", // 4
  "  - type: email", // 5
  "    value: jdoe@example.com", // 6
  "  - { type: phone, subType: mobile }", // 7
  "note:", // 8
  "---", // 9
  "# only a comment", // 10
  "---", // 11
  "kind: Package", // 12
  "name: p", // 13
].join("\n");

describe("parseYamlFile", () => {
  const parsed = parseYamlFile("manifests/x.yaml", TEXT);
  const [user, pkg] = parsed.documents;

  it("keeps the documents that hold something, with their index in the file", () => {
    expect(parsed.issues).toEqual([]);
    expect(parsed.documents.map((d) => d.index)).toEqual([0, 2]);
    expect(pkg?.value).toEqual({ kind: "Package", name: "p" });
  });

  it("locates values, keys and list items by path", () => {
    expect(user?.locate(["userName"])).toEqual({ file: "manifests/x.yaml", line: 3, column: 11 });
    expect(user?.locate(["userName"], "key")).toMatchObject({ line: 3, column: 1 });
    expect(user?.locate(["contacts", 0, "value"])).toMatchObject({ line: 6, column: 12 });
    expect(user?.locate(["contacts", 1, "subType"])).toMatchObject({ line: 7, column: 29 });
    expect(pkg?.locate(["name"])).toMatchObject({ line: 13, column: 7 });
  });

  it("falls back to the deepest part of a path that exists", () => {
    expect(user?.locate(["contacts", 1, "missing"])).toMatchObject({ line: 7, column: 5 });
    expect(user?.locate(["contacts", 9])).toMatchObject({ line: 5, column: 3 });
    expect(user?.locate(["absent"])).toMatchObject({ line: 2, column: 1 });
  });

  it("points an empty value at its key", () => {
    expect(user?.locate(["note"])).toMatchObject({ line: 8, column: 1 });
  });

  it("reports a syntax error with its position and no source excerpt", () => {
    const broken = parseYamlFile("manifests/y.yaml", "kind: User\npassword: hunter2 x: [\n");
    expect(broken.documents).toEqual([]);
    const [first] = broken.issues;
    expect(first).toMatchObject({ file: "manifests/y.yaml", line: 2, severity: "error" });
    for (const issue of broken.issues) expect(formatManifestError(issue)).not.toContain("hunter2");
  });

  it("reports a duplicate key at the second occurrence", () => {
    const duplicate = parseYamlFile("m.yaml", "kind: User\nuserName: a\nuserName: b\n");
    expect(duplicate.issues.map(formatManifestError)).toEqual(["m.yaml:3:1: YAML: Map keys must be unique"]);
  });

  it("refuses alias bombs", () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 0; i < 6; i++)
      bomb.push(
        `${"bcdefg"[i]}: &${"bcdefg"[i]} [${Array(10)
          .fill(`*${i === 0 ? "a" : "bcdefg"[i - 1]}`)
          .join(", ")}]`,
      );
    const parsed = parseYamlFile("bomb.yaml", bomb.join("\n"));
    expect(parsed.documents).toEqual([]);
    expect(parsed.issues[0]?.message).toMatch(/alias/i);
  });

  it("reads an empty file or a file of comments as no documents", () => {
    expect(parseYamlFile("e.yaml", "")).toMatchObject({ documents: [], issues: [] });
    expect(parseYamlFile("e.yaml", "# nothing\n")).toMatchObject({ documents: [], issues: [] });
  });
});

describe("formatPath", () => {
  it("writes indexes in brackets and quotes keys that are not identifiers", () => {
    expect(formatPath(["users", 3, "contacts", 0, "subType"])).toBe("users[3].contacts[0].subType");
    expect(formatPath(["roles", "General User"])).toBe('roles["General User"]');
    expect(formatPath([])).toBe("");
  });
});

describe("YAML messages quote no source", () => {
  const SECRET = "Mk9zqvX-SECRET-7f3";
  const cases: Record<string, string> = {
    tag: `password: !${SECRET}\n`,
    alias: `password: *${SECRET}\n`,
    blockHeader: `password: |${SECRET}\n`,
    foldedHeader: `password: >-${SECRET}\n`,
    escape: `password: "${SECRET}\\q"\n`,
    unclosedQuote: `password: "${SECRET}\nnext: x\n`,
  };

  for (const [name, text] of Object.entries(cases)) {
    it(`${name}: positioned, without the value`, () => {
      const { issues } = parsePrecise("environments/prod.yaml", text);
      expect(issues.length).toBeGreaterThan(0);
      for (const issue of issues) {
        expect(issue.line).toBeGreaterThan(0);
        expect(formatManifestError(issue)).not.toMatch(/zqvX|SECRET|7f3/);
      }
    });
  }

  it("says that a ${VAR} in { } must be quoted, once, where YAML trips on it", () => {
    const text = "url: x\nauth: { username: svc, password: ${EGP_PW} }\n";
    const messages = parsePrecise("environments/prod.yaml", text).issues.map(formatManifestError);
    expect(messages[0]).toBe(
      'environments/prod.yaml:2:35: YAML: Unexpected flow-map-start at node end (a ${VAR} inside { } or [ ] must be quoted: "${VAR}")',
    );
    expect(messages.filter((m) => m.includes("must be quoted"))).toHaveLength(1);
    expect(messages.at(-1)).toBe(
      "environments/prod.yaml:2:44: YAML: Unexpected flow-map-end token in YAML stream",
    );
  });

  it("keeps the library's fixed messages, and replaces the quoting ones", () => {
    expect(safeYamlMessage("Map keys must be unique")).toBe("Map keys must be unique");
    expect(safeYamlMessage("Missing , or : between flow map items")).toBe(
      "Missing , or : between flow map items",
    );
    expect(safeYamlMessage(`Unresolved tag: !${SECRET}`)).toBe(
      "unresolved tag: a value that starts with ! is a tag; quote the value",
    );
    expect(safeYamlMessage(`Unexpected &${SECRET} in flow map`)).toBe(
      "unexpected text in a {…} or […] collection; quote the value",
    );
  });
});
