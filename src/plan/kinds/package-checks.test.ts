import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredPackage,
  environment,
  live,
  packageObject,
} from "../../../test/builders/plan.ts";
import type { DesiredPackage } from "../../manifest/index.ts";
import type { CatalogueIndex, LivePackageObject, LivePackageSide } from "../../state/live-state.ts";
import { planChanges } from "../plan-changes.ts";
import { renderMarkdown } from "../render/markdown.ts";
import { renderText } from "../render/text.ts";
import { packageConflicts } from "./package-conflicts.ts";
import { carriedBy, missingMessage, packageDependencies } from "./package-dependencies.ts";
import { dependenciesOf, orderProblems } from "./package-order.ts";

/* The pure parts of the package checks; test/e2e/package-checks.test.ts runs them against emulators. */

const at = (line: number) => ({ file: "manifests/p.yaml", line, column: 1, path: "dependsOn[0]" });

function pkg(name: string, dependsOn: string[] = [], line = 1): DesiredPackage {
  return desiredPackage(name, ["X"], {
    dependsOn: dependsOn.map((n, index) => ({ name: n, source: at(line + index) })),
  });
}

function object(
  guid: string,
  name: string,
  levels: string[],
  references: LivePackageObject["references"] = [],
) {
  const parts = Object.fromEntries(levels.map((level) => [`level:${level}`, "f"]));
  return { ...packageObject(guid, name, "fp", parts), references };
}

function side(objects: LivePackageObject[], catalogue?: Partial<CatalogueIndex>): LivePackageSide {
  return {
    objects: Object.fromEntries(objects.map((o) => [o.guid, o])),
    applicationsByName: {},
    ...(catalogue ? { catalogue: { modules: {}, levels: {}, ...catalogue } } : {}),
  };
}

const ref = (field: string, level: string | null, module: string) => ({
  field,
  via: level ? "cross-reference" : "sub-form",
  level,
  module,
});

const findings = object(
  "f",
  "Findings",
  ["f1"],
  [ref("Related Control", "c1", "c"), ref("Comments", null, "s")],
);
const controls = object("c", "Controls", ["c1"], [ref("Policies", "p1", "p")]);
const policies = object("p", "Policies", ["p1"]);
const comments = { ...object("s", "Comments", ["s1"]), type: "SubForm" as const };
const sourceIndex: CatalogueIndex = {
  modules: {
    f: { name: "Findings", alias: "Findings", type: "Application" },
    c: { name: "Controls", alias: "Controls", type: "Application" },
    p: { name: "Policies", alias: "Policies", type: "Application" },
    s: { name: "Comments", alias: "Comments", type: "SubForm" },
  },
  levels: {
    c1: { name: "Control", alias: "Control", module: "c" },
    p1: { name: "Policy", alias: "Policy", module: "p" },
  },
};
const source = side([findings, controls, policies, comments], sourceIndex);
const none = carriedBy([]);

describe("packageDependencies", () => {
  it("names what neither the package nor the target has, with the fields that need it", () => {
    const result = packageDependencies({
      objects: [findings],
      source,
      target: side([], {}),
      before: none,
      others: [],
      include: false,
    });
    expect(result.added).toEqual([]);
    expect(result.missing.map((m) => missingMessage(pkg("P"), m, "prod"))).toEqual([
      'package "P": application "Controls" is needed by Findings (field "Related Control", cross-reference), and is neither in the package nor on prod; add it to objects, set includeDependencies: true, or install it first',
      'package "P": sub-form "Comments" is needed by Findings (field "Comments", sub-form), and is neither in the package nor on prod; add it to objects, set includeDependencies: true, or install it first',
    ]);
  });

  it("names the level alone when the target has its application without it", () => {
    const target = side([], { modules: { c: { name: "Controls", alias: "Controls", type: "Application" } } });
    const result = packageDependencies({
      objects: [findings],
      source,
      target,
      before: none,
      others: [],
      include: false,
    });
    expect(result.missing.map((m) => m.what)).toEqual([
      'level "Control" of application "Controls"',
      'sub-form "Comments"',
    ]);
  });

  it("counts what the target has, and what a package installed first carries", () => {
    const target = side([], { levels: { c1: { name: "Control", alias: "Control", module: "c" } } });
    const result = packageDependencies({
      objects: [findings],
      source,
      target,
      before: carriedBy([comments]),
      others: [],
      include: false,
    });
    expect(result.missing).toEqual([]);
  });

  it("with include, adds what is missing and what that needs in turn, saying which field needs it", () => {
    const result = packageDependencies({
      objects: [findings],
      source,
      target: side([], {}),
      before: none,
      others: [],
      include: true,
    });
    expect(result.missing).toEqual([]);
    expect(result.added.map((a) => [a.object.name, a.of, a.field])).toEqual([
      ["Controls", "Findings", "Related Control"],
      ["Comments", "Findings", "Comments"],
      ["Policies", "Controls", "Policies"],
    ]);
  });

  it("points at another package of the plan that has it", () => {
    const result = packageDependencies({
      objects: [findings],
      source,
      target: side([], { modules: { s: { name: "Comments", alias: "Comments", type: "SubForm" } } }),
      before: none,
      others: [{ name: "Catalog", carried: carriedBy([controls]) }],
      include: false,
    });
    expect(missingMessage(pkg("P"), result.missing[0]!, "prod")).toMatch(
      /; package "Catalog" of this plan has it: add dependsOn: \["Catalog"\]$/,
    );
  });
});

describe("packageConflicts", () => {
  const withMembers = (
    o: LivePackageObject,
    levels: [string, string][],
    fields: [string, string, string][],
  ) => ({
    ...o,
    members: {
      levels: levels.map(([guid, alias]) => ({ guid, name: alias, alias })),
      fields: fields.map(([guid, alias, level]) => ({ guid, name: alias, alias, level })),
    },
  });

  it("two applications with one name, compared trimmed and case-insensitively", () => {
    const target = side([], { modules: { other: { name: " findings ", alias: "x", type: "Application" } } });
    const conflicts = packageConflicts({ objects: [findings], target, environment: "prod" });
    expect(conflicts.map((c) => c.message)).toEqual([
      expect.stringMatching(
        /^two applications would be named "Findings": "Findings" \(f, in the package\) and " findings " \(other, on prod\)/,
      ),
    ]);
  });

  it("a target object the package renames counts under its new name; a sub-form may share an application's name", () => {
    const renamed = { ...object("other", "Controls", []) };
    const target = side([], {
      modules: {
        other: { name: "Findings", alias: "x", type: "Application" },
        s2: { name: "Findings", alias: "y", type: "SubForm" },
      },
    });
    expect(packageConflicts({ objects: [findings, renamed], target, environment: "prod" })).toEqual([]);
  });

  it("levels of a module and fields of a level with one alias, against what the target keeps", () => {
    const packaged = withMembers(findings, [["f1", "Finding"]], [["a", "Title", "f1"]]);
    const live = withMembers(
      findings,
      [
        ["f1", "Finding"],
        ["f9", "FINDING"],
      ],
      [
        ["b", "title", "f1"],
        ["a", "Old", "f1"],
      ],
    );
    const target = side([live], {
      levels: {
        f1: { name: "Finding", alias: "Finding", module: "f" },
        f9: { name: "FINDING", alias: "FINDING", module: "f" },
      },
    });
    const messages = packageConflicts({ objects: [packaged], target, environment: "prod" }).map(
      (c) => c.message,
    );
    expect(messages).toEqual([
      expect.stringMatching(
        /^application "Findings" would have two levels with the alias "Finding": "Finding" \(f1, in the package\) and "FINDING" \(f9, on prod\)/,
      ),
      expect.stringMatching(
        /^level "Finding" of application "Findings" would have two fields with the alias "Title": "Title" \(a, in the package\) and "title" \(b, on prod\)/,
      ),
    ]);
  });
});

describe("dependsOn", () => {
  it("a name no Package document has is refused at its entry", () => {
    expect(orderProblems([pkg("A", ["Nope"], 4)])).toEqual([
      expect.objectContaining({ line: 4, message: '"Nope" is not a Package document of this plan' }),
    ]);
  });

  it("a loop is refused at each entry on it; a chain is not a loop", () => {
    const loop = orderProblems([pkg("A", ["B"], 1), pkg("B", ["C"], 5), pkg("C", ["a"], 9)]);
    expect(loop.map((p) => [p.line, p.message])).toEqual([
      [
        1,
        'makes a loop: "A" → "B" → "C" → "A"; a package can only be installed after the packages it depends on',
      ],
      [
        5,
        'makes a loop: "A" → "B" → "C" → "A"; a package can only be installed after the packages it depends on',
      ],
      [
        9,
        'makes a loop: "A" → "B" → "C" → "A"; a package can only be installed after the packages it depends on',
      ],
    ]);
    expect(orderProblems([pkg("A", ["B"]), pkg("B", ["C"]), pkg("C")])).toEqual([]);
  });

  it("dependencies are transitive", () => {
    const all = [pkg("A", ["B"]), pkg("B", ["C"]), pkg("C")];
    expect(dependenciesOf(all[0]!, all).map((p) => p.name)).toEqual(["B", "C"]);
  });
});

describe("rendering an added dependency", () => {
  it("says why it is there in text and markdown, names escaped", () => {
    const plan = {
      formatVersion: 1,
      id: "x",
      environment: "prod",
      createdAt: "2026-01-01T00:00:00.000Z",
      digests: { manifests: "m", live: "l", liveParts: {} },
      options: { allowDelete: false, enforceRoles: false },
      changes: [
        {
          id: "Package/P",
          kind: "Package",
          key: "P",
          action: "promote",
          fields: [
            {
              field: "Application Controls",
              before: "(absent)",
              after: "1 level",
              verifiable: true,
              dependencyOf: { object: "Find\u001bings", field: "Related Control" },
            },
          ],
          notes: [],
          destructive: false,
        },
      ],
      steps: [],
      unmanaged: [],
      summary: { add: 0, change: 0, destroy: 0, promote: 1, drift: 1 },
    } as unknown as Parameters<typeof renderText>[0];
    const line =
      '~ Application Controls: "(absent)" -> "1 level" (added as a dependency of Find\\x1bings (field Related Control))';
    expect(renderText(plan)).toContain(line);
    expect(renderMarkdown(plan)).toContain(line);
  });
});

describe("the planner", () => {
  const prod = environment("prod", { packagesFrom: "dev" });
  const dev = environment("dev");
  const byHand = { name: "Findings", alias: "x", type: "Application" };
  const sourceSide = { environment: "dev", ...side([findings, controls, policies, comments], sourceIndex) };
  sourceSide.applicationsByName = { findings: "f", controls: "c", policies: "p" };
  const everything = [findings, controls, policies, comments];
  const plan = (packages: DesiredPackage[], target: LivePackageSide) =>
    planChanges(
      desired({ environment: prod, packagesFrom: dev, packages }),
      live({ packages: target, packageSource: sourceSide }),
      { createdAt: CREATED_AT },
    );

  it("refuses a package it would install; one whose objects all match installs nothing and is not refused", () => {
    const clash = { modules: { ...sourceIndex.modules, other: byHand }, levels: sourceIndex.levels };
    expect(() => plan([desiredPackage("P", ["Findings"])], side([], clash))).toThrow(
      /two applications would be named "Findings"/,
    );
    const planned = plan([desiredPackage("P", ["Findings"])], side(everything, clash));
    expect(planned.changes).toEqual([]);
  });

  it("installs a package after those it depends on, waiting for their verification", () => {
    const target = side([], {});
    const planned = plan(
      [
        desiredPackage("Catalog", ["Controls", "Policies"], { includeDependencies: at(1) }),
        desiredPackage("Use", ["Findings"], {
          dependsOn: [{ name: "catalog", source: at(2) }],
          includeDependencies: at(3),
        }),
      ],
      target,
    );
    const install = planned.steps.find((s) => s.id === "Package/Use#install");
    expect(install?.dependsOn).toEqual(["Package/Use#upload", "Package/Catalog#verify"]);
    // Use adds only what Catalog does not bring: the sub-form.
    expect(
      planned.changes.find((c) => c.key === "Use")?.fields.map((f) => [f.field, f.dependencyOf]),
    ).toEqual([
      ["Application Findings", undefined],
      ["SubForm Comments", { object: "Findings", field: "Comments" }],
    ]);
  });
});
