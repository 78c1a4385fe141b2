import { describe, expect, it } from "vitest";
import type { DesiredAbsent } from "../manifest/index.ts";
import { prunePass } from "./prune.ts";

const absent = (name: string): DesiredAbsent => ({
  kind: "User",
  ensure: "absent",
  key: name.toLowerCase(),
  name,
  source: { file: "m.yaml", line: 1, column: 1 },
  path: "",
});

describe("prunePass", () => {
  it("sorts the live objects, in their order: absent, kept, excluded, unmanaged", () => {
    const seen: string[] = [];
    const excluded = prunePass(
      {
        kind: "User",
        live: ["Alice", "BOB", "breakglass1", "Carol", "Dave"],
        keyOf: (name) => name.toLowerCase(),
        nameOf: (name) => name,
        present: ["alice"],
        absent: [absent("bob")],
        exclude: ["Breakglass*"],
      },
      {
        absent: (name, document) => seen.push(`absent ${name} (${document.name})`),
        unmanaged: (name) => seen.push(`unmanaged ${name}`),
      },
    );
    expect(seen).toEqual(["absent BOB (bob)", "unmanaged Carol", "unmanaged Dave"]);
    expect(excluded).toEqual([{ kind: "User", key: "breakglass1" }]);
  });

  it("an absent document wins over an exclude glob: the manifest names that object", () => {
    const seen: string[] = [];
    prunePass(
      {
        kind: "User",
        live: ["keep-me"],
        keyOf: (name) => name,
        nameOf: (name) => name,
        present: [],
        absent: [absent("keep-me")],
        exclude: ["keep*"],
      },
      { absent: (name) => seen.push(name), unmanaged: () => seen.push("unmanaged") },
    );
    expect(seen).toEqual(["keep-me"]);
  });

  it("takes the present keys as a test of a key as well as a list", () => {
    const seen: string[] = [];
    const excluded = prunePass(
      {
        kind: "User",
        live: ["Alice", "BOB", "breakglass1", "Carol", "Dave"],
        keyOf: (name) => name.toLowerCase(),
        nameOf: (name) => name,
        present: (key) => key === "alice" || key === "dave",
        absent: [absent("bob")],
        exclude: ["Breakglass*"],
      },
      {
        absent: (name, document) => seen.push(`absent ${name} (${document.name})`),
        unmanaged: (name) => seen.push(`unmanaged ${name}`),
      },
    );
    expect(seen).toEqual(["absent BOB (bob)", "unmanaged Carol"]);
    expect(excluded).toEqual([{ kind: "User", key: "breakglass1" }]);
  });
});
