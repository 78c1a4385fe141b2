import { CORE_SCHEMA, constructFromEvents, parseEvents } from "js-yaml";
import { describe, expect, it } from "vitest";
import { parseFast } from "../../src/manifest/yaml-events.ts";

/*
 * The fast path builds values in the same pass that indexes positions (yaml-events.ts, `scan`);
 * they must be js-yaml's, as its constructor builds them with the core schema.
 */

const jsYaml = (text: string) =>
  constructFromEvents(parseEvents(text, {}), { source: text, schema: CORE_SCHEMA });

const CASES: Record<string, string> = {
  scalars:
    "a: 1\nb: [1, 2.5, .inf, -.Inf, .nan, 0x1F, 0o17, 1e3, true, False, ~, null, '', \"x\\ty\", 'it''s']\nc:\nd: |\n  block\n  text\ne: >-\n  folded\n  text\n",
  "odd keys": "<<: {b: 2}\n__proto__: {c: 1}\nconstructor: x\ntoString: y\n",
  documents:
    "---\n---\nx\n---\n- a\n- {b: c}\n- [d, [e, {f: g}]]\n---\nkind: User\ncontacts: []\ngroups: [Everyone]\n",
};

describe("values of the fast YAML path", () => {
  it.each(Object.entries(CASES))("%s: js-yaml's values", (_name, text) => {
    const fast = parseFast("x.yaml", text);
    expect(fast).not.toBeNull();
    const values = (fast ?? []).map((document) => document.value);
    expect(values).toStrictEqual(jsYaml(text));
    expect(JSON.stringify(values)).toBe(JSON.stringify(jsYaml(text)));
  });

  it("leaves a key written twice to the yaml library, which reports it", () => {
    expect(() => jsYaml("k: v\nk: w\n")).toThrow(/duplicated mapping key/);
    expect(parseFast("x.yaml", "k: v\nk: w\n")).toBeNull();
    expect(parseFast("x.yaml", "a: {k: 1, k: 2}\n")).toBeNull();
  });

  it("keeps __proto__ as an own key, not the prototype", () => {
    const [document] = parseFast("x.yaml", "__proto__: {polluted: true}\n") ?? [];
    const value = document?.value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
