import { describe, expect, it } from "vitest";
import type { LivePackageObject, PartDetail } from "../state/live-state.ts";
import { describeCounts, describeDifference, diffObject, objectMatches } from "./package-diff.ts";
import { partLine } from "./render/parts.ts";

/** An object from parts given as key → [fingerprint, detail]. */
function object(name: string, parts: Record<string, [string, PartDetail?]>): LivePackageObject {
  const details: Record<string, PartDetail> = {};
  for (const [key, [, detail]] of Object.entries(parts)) if (detail) details[key] = detail;
  return {
    guid: "g-app",
    type: "Application",
    name,
    fingerprint: Object.values(parts)
      .map(([fp]) => fp)
      .join(""),
    parts: { levels: 1, fields: Object.keys(parts).filter((k) => k.startsWith("field:")).length },
    partFingerprints: Object.fromEntries(Object.entries(parts).map(([key, [fp]]) => [key, fp])),
    details,
  };
}

const field = (name: string, properties: Partial<PartDetail["properties"]> = {}): PartDetail => ({
  name,
  parent: "Risk",
  properties: {
    name,
    alias: name.replace(/ /g, "_"),
    type: "Text",
    active: true,
    required: false,
    description: null,
    values: [],
    references: [],
    "sub-form": null,
    ...properties,
  } as PartDetail["properties"],
});

describe("diffObject", () => {
  it("names a field that becomes required, before → after, as critical", () => {
    const target = object("Risks", { "field:f1": ["a", field("Risk Score")] });
    const source = object("Risks", { "field:f1": ["b", field("Risk Score", { required: true })] });
    const { parts, counts } = diffObject(source, target);
    expect(parts).toEqual([
      {
        part: "field",
        guid: "f1",
        name: "Risk Score",
        parent: "Risk",
        status: "changed",
        severity: "critical",
        properties: [{ property: "required", before: false, after: true, severity: "critical" }],
      },
    ]);
    expect(counts).toEqual({ added: 0, changed: 1, onlyOnTarget: 0, critical: 1 });
    expect(partLine(parts[0]!)).toBe('~ field "Risk Score": required false → true [critical]');
  });

  it("rates a type change critical, a field no longer required and a new description normal", () => {
    const target = object("Risks", {
      "field:f1": ["a", field("Score", { type: "Text" })],
      "field:f2": ["a", field("Owner", { required: true, description: "old" })],
    });
    const source = object("Risks", {
      "field:f1": ["b", field("Score", { type: "Numeric" })],
      "field:f2": ["b", field("Owner", { required: false, description: "new" })],
    });
    const { parts } = diffObject(source, target);
    expect(parts.map((p) => partLine(p))).toEqual([
      '~ field "Owner": required true → false; description "old" → "new"',
      '~ field "Score": type "Text" → "Numeric" [critical]',
    ]);
  });

  it("lists added parts, and parts only on the target (critical for fields, rules, actions; not levels)", () => {
    const target = object("Controls", {
      "level:l2": ["x", { name: "Old Level", properties: { name: "Old Level" } }],
      "field:legacy": ["x", field("Legacy Control ID")],
      "rule:r1": ["x", { name: "Old rule", parent: "Control", properties: { name: "Old rule" } }],
      "action:a1": ["x", { name: "Old action", parent: "Old rule", properties: { name: "Old action" } }],
    });
    const source = object("Controls", {
      "field:tested": ["y", field("Last Tested", { type: "Date" })],
      "rule:r2": ["y", { name: "Ineffective control", parent: "Control", properties: {} }],
    });
    const { parts, counts } = diffObject(source, target);
    expect(parts.map((p) => [p.part, p.name, p.status, p.severity])).toEqual([
      ["level", "Old Level", "onlyOnTarget", "normal"],
      ["field", "Last Tested", "added", "normal"],
      ["field", "Legacy Control ID", "onlyOnTarget", "critical"],
      ["rule", "Ineffective control", "added", "normal"],
      ["rule", "Old rule", "onlyOnTarget", "critical"],
      ["action", "Old action", "onlyOnTarget", "critical"],
    ]);
    expect(counts).toEqual({ added: 2, changed: 0, onlyOnTarget: 4, critical: 3 });
  });

  it("rates any change of an event rule or action critical", () => {
    const rule = (condition: string): PartDetail => ({
      name: "Escalate",
      properties: { name: "Escalate", condition, "condition fields": ["Score"] },
    });
    const { parts } = diffObject(
      object("Risks", { "rule:r": ["b", rule("Score >= 15")] }),
      object("Risks", { "rule:r": ["a", rule("Score >= 20")] }),
    );
    expect(partLine(parts[0]!)).toBe(
      '~ event rule "Escalate": condition "Score >= 20" → "Score >= 15" [critical]',
    );
  });

  it("compares lists of names as sets: values added and removed, order only when it alone changed", () => {
    const target = object("Risks", {
      "field:f": ["a", field("Status", { values: ["Closed", "Open"] })],
      "action:a": ["a", { name: "Require", properties: { "target fields": ["A", "B"] } }],
    });
    const source = object("Risks", {
      "field:f": ["b", field("Status", { values: ["Ineffective", "Open"] })],
      "action:a": ["b", { name: "Require", properties: { "target fields": ["B", "A"] } }],
    });
    const lines = diffObject(source, target).parts.map((p) => partLine(p));
    expect(lines).toEqual([
      '~ field "Status": value "Ineffective" added; value "Closed" removed',
      '~ event action "Require": target fields order ["A", "B"] → ["B", "A"] [critical]',
    ]);
  });

  it("compares layouts section by section", () => {
    const layout = (sections: Array<{ name: string; fields: string[] }>): PartDetail => ({
      name: "Control Layout",
      properties: { name: "Control Layout" },
      sections,
    });
    const target = layout([
      { name: "General", fields: ["Name", "Legacy", "Owner", "Frequency"] },
      { name: "Old", fields: ["X"] },
    ]);
    const source = layout([
      { name: "General", fields: ["Name", "Frequency", "Owner"] },
      { name: "Testing", fields: ["Last Tested", "Test Result"] },
    ]);
    const { parts } = diffObject(
      object("Controls", { "layout:l": ["b", source] }),
      object("Controls", { "layout:l": ["a", target] }),
    );
    expect(parts[0]?.severity).toBe("normal");
    expect(parts[0]?.properties?.map((p) => p.property)).toEqual([
      'section "General" field "Legacy"',
      'section "General" fields order',
      'section "Testing"',
      'section "Old"',
    ]);
    expect(partLine(parts[0]!)).toContain('section "Testing" added with "Last Tested", "Test Result"');
    expect(partLine(parts[0]!)).toContain('section "Old" removed');
  });

  it("lists every part of an object the target lacks as added", () => {
    const source = object("Findings", {
      "module:m": ["a", { name: "Findings", properties: {} }],
      "field:f": ["b", field("Severity")],
    });
    const { parts, counts } = diffObject(source, undefined);
    expect(parts.map((p) => `${p.part} ${p.name} ${p.status}`)).toEqual([
      "module Findings added",
      "field Severity added",
    ]);
    expect(counts.added).toBe(2);
  });

  it("names parts by GUID when the object was read without details", () => {
    const bare = (fp: string): LivePackageObject => ({
      ...object("X", {}),
      partFingerprints: { "rule:r9": fp },
    });
    const { parts } = diffObject(bare("new"), bare("old"));
    expect(parts).toEqual([
      { part: "rule", guid: "r9", name: "r9", status: "changed", severity: "critical", properties: [] },
    ]);
  });
});

describe("describeDifference", () => {
  const target = object("Controls", {
    "layout:l": ["a", { name: "Control Layout", properties: { name: "Old" } }],
    "field:f": ["a", field("Owner")],
  });
  const source = object("Controls", {
    "layout:l": ["b", { name: "Control Layout", properties: { name: "New" } }],
    "field:f": ["b", field("Owner", { required: true })],
    "field:n": ["c", field("Last Tested")],
  });

  it("marks what the install options leave as the target has it", () => {
    const keep = describeDifference(source, target, { installMethod: 2, installOption: 1 });
    expect(keep.parts?.map((p) => [p.name, p.keptByInstall ?? false])).toEqual([
      ["Last Tested", false],
      ["Owner", false],
      ["Control Layout", true],
    ]);
    const createNew = describeDifference(source, target, { installMethod: 1, installOption: 2 });
    expect(createNew.parts?.filter((p) => p.keptByInstall).map((p) => p.name)).toEqual([
      "Owner",
      "Control Layout",
    ]);
    expect(partLine(keep.parts![2]!)).toBe(
      '~ layout "Control Layout": name "Old" → "New" (the install keeps the target\'s)',
    );
  });

  it("sums the parts up in one line, with the number of critical ones", () => {
    const change = describeDifference(source, target);
    expect(change).toMatchObject({
      field: "Application Controls",
      before: "1 level, 1 field",
      after: "1 part(s) to add, 2 to change (1 critical)",
    });
    expect(describeCounts({ added: 0, changed: 0, onlyOnTarget: 0, critical: 0 })).toBe("differs");
  });
});

describe("questionnaire rules", () => {
  const rule = (name: string, outcome: string): PartDetail => ({
    name,
    parent: "Vendor Risk Assessment",
    properties: { name, alias: name, condition: "Score > 10", "condition fields": ["Score"], outcome },
  });

  it("only on the target leave an object recorded without them matching, and are named", () => {
    const recorded = object("Vendor Risk Assessment", { "field:f1": ["a"] });
    const target = object("Vendor Risk Assessment", {
      "field:f1": ["a"],
      "questionnaireRule:q1": ["r", rule("High inherent risk", "Flag")],
    });
    expect(objectMatches(recorded, target, { installMethod: 2, installOption: 1 })).toBe(true);
    const { parts } = diffObject(recorded, target);
    expect(parts.map((p) => partLine(p))).toEqual([
      '- questionnaire rule "High inherent risk": only on the target',
    ]);
  });

  it("changed on the target are a difference, property by property", () => {
    const source = object("Vendor Risk Assessment", {
      "questionnaireRule:q1": ["r", rule("High inherent risk", "Flag")],
    });
    const target = object("Vendor Risk Assessment", {
      "questionnaireRule:q1": ["s", rule("High inherent risk", "Ignore")],
    });
    expect(objectMatches(source, target, { installMethod: 2, installOption: 1 })).toBe(false);
    const { parts } = diffObject(source, target);
    expect(parts.map((p) => partLine(p))).toEqual([
      '~ questionnaire rule "High inherent risk": outcome "Ignore" → "Flag"',
    ]);
  });
});
