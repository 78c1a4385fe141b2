import { describe, expect, it } from "vitest";
import type { LivePackageObject, PartDetail } from "../state/live-state.ts";
import { compareInstances, comparisonDiffers } from "./compare-instances.ts";
import { renderComparisonJson, renderComparisonMarkdown, renderComparisonText } from "./render/comparison.ts";
import { renderComparisonHtml } from "./render/comparison-html.ts";

function object(
  guid: string,
  name: string,
  parts: Record<string, [string, PartDetail]>,
  type: LivePackageObject["type"] = "Application",
): LivePackageObject {
  return {
    guid,
    type,
    name,
    fingerprint: Object.values(parts)
      .map(([fp]) => fp)
      .join("|"),
    parts: { levels: 0, fields: Object.keys(parts).length },
    partFingerprints: Object.fromEntries(Object.entries(parts).map(([key, [fp]]) => [key, fp])),
    details: Object.fromEntries(Object.entries(parts).map(([key, [, detail]]) => [key, detail])),
  };
}

const field = (name: string, required = false): PartDetail => ({
  name,
  properties: { name, type: "Text", required },
});

const side = (environment: string, objects: LivePackageObject[]) => ({
  environment,
  applicationsByName: {},
  objects: Object.fromEntries(objects.map((o) => [o.guid, o])),
});

const A = side("dev", [
  object("g1", "Risks", { "field:f1": ["b", field("Score", true)] }),
  object("g2", "Findings", { "field:f2": ["c", field("Title")] }),
  object("g3", "Policies", { "field:f3": ["d", field("Name")] }),
  object("g5", "Comments", { "field:f5": ["e", field("Text")] }, "SubForm"),
]);
const B = side("prod", [
  object("g1", "Risks", { "field:f1": ["a", field("Score")], "field:f9": ["z", field("Legacy")] }),
  object("g3", "Policies", { "field:f3": ["d", field("Name")] }),
  object("g4", "Vendors", { "field:f4": ["x", field("Vendor")] }),
  object("g5", "Comments", { "field:f5": ["e", field("Text")] }, "SubForm"),
]);
const comparison = compareInstances({ from: A, to: B, createdAt: "2026-01-01T00:00:00.000Z" });

describe("compareInstances", () => {
  it("groups objects: mismatched, missing in target, missing in source, matched; by name within a group", () => {
    expect(comparison.objects.map((o) => `${o.status} ${o.type} ${o.name}`)).toEqual([
      "mismatched Application Risks",
      "missingInTarget Application Findings",
      "missingInSource Application Vendors",
      "matched SubForm Comments",
      "matched Application Policies",
    ]);
    expect(comparison.summary).toEqual({
      objects: 5,
      matched: 2,
      mismatched: 1,
      missingInTarget: 1,
      missingInSource: 1,
      parts: { added: 1, changed: 1, onlyOnTarget: 1, critical: 2 },
    });
    expect(comparisonDiffers(comparison)).toBe(true);
  });

  it("lists the parts of mismatched objects and of objects missing in the target, not of the others", () => {
    const [risks, findings, vendors, comments] = comparison.objects;
    expect(risks?.parts.map((p) => `${p.status} ${p.name} ${p.severity}`)).toEqual([
      "onlyOnTarget Legacy critical",
      "changed Score critical",
    ]);
    expect(findings?.parts.map((p) => p.status)).toEqual(["added"]);
    expect(vendors?.parts).toEqual([]);
    expect(vendors?.toParts).toEqual({ levels: 0, fields: 1 });
    expect(vendors?.fromParts).toBeUndefined();
    expect(comments?.parts).toEqual([]);
  });

  it("finds nothing to report between an instance and itself", () => {
    const same = compareInstances({ from: A, to: { ...A, environment: "copy" }, createdAt: "x" });
    expect(same.summary).toMatchObject({ objects: 4, matched: 4 });
    expect(comparisonDiffers(same)).toBe(false);
    expect(renderComparisonText(same)).toMatch(/dev and copy match\.\n$/);
  });
});

describe("comparison renderers", () => {
  it("text: the summary, then each group with its objects and their parts", () => {
    const text = renderComparisonText(comparison);
    expect(text).toContain(
      "  1 mismatched, 1 missing in target, 1 missing in source, 2 matched (5 compared)",
    );
    expect(text).toContain(
      'Mismatched (1)\n  ~ Application "Risks": 1 mismatched, 1 missing in source (2 critical)',
    );
    expect(text).toContain('      - field "Legacy": missing in dev [critical]');
    // The title says dev → prod: dev's value first, each labelled.
    expect(text).toContain('      ~ field "Score": required: dev true, prod false [critical]');
    expect(text).toContain('      + field "Title": missing in prod');
    expect(text).toContain('  - Application "Vendors": not on dev (1 field)');
    expect(text).toContain('  = SubForm "Comments": 1 field');
    expect(text.trimEnd().split("\n").at(-1)).toBe("dev and prod differ.");
  });

  it("json: the comparison itself", () => {
    expect(JSON.parse(renderComparisonJson(comparison))).toEqual(JSON.parse(JSON.stringify(comparison)));
  });

  it("markdown: a table, a fold per differing object, and a cut it announces", () => {
    const markdown = renderComparisonMarkdown(comparison);
    expect(markdown).toContain("| 2 | 1 | 1 | 1 | 2 |");
    expect(markdown).toContain(
      "<details><summary><code>Mismatched · Application &quot;Risks&quot;: 1 mismatched, 1 missing in source (2 critical)</code></summary>",
    );
    const small = renderComparisonMarkdown(comparison, 900);
    expect(small.length).toBeLessThanOrEqual(900);
    expect(small).toMatch(/\*\*Cut:\*\* \d object\(s\) are not shown/);
  });

  it("html: reads in the title's direction, with what is missing shown and a warning colour for it", () => {
    const html = renderComparisonHtml(comparison);
    expect(html).toContain("<title>egp compare: dev → prod</title>");
    expect(html).toContain("<th>dev → prod</th>");
    expect(html).not.toContain("prod → dev");
    expect(html).toContain("<li>required: dev true, prod false</li>");
    // Missing in target is something a promotion must bring: a warning, not green.
    const colour = html.match(/\.missingInTarget \{ background: (#[0-9a-f]{6}); color: (#[0-9a-f]{6}); \}/);
    expect(colour?.slice(1)).toEqual(["#fff1e5", "#953800"]);
    // The part missing in dev is shown as prod has it.
    const legacy = html.split("<tr").find((row) => row.includes("missing in dev"));
    expect(legacy).toContain('<span class="muted">on prod:</span><ul><li>name: &quot;Legacy&quot;</li>');
    expect(legacy).toContain("<li>required: false</li>");
  });

  it("html: folded sections by default, every one open with expand", () => {
    const folded = renderComparisonHtml(comparison);
    expect(folded.match(/<details class="object"[^>]*>/g)).toHaveLength(5);
    expect(folded).not.toMatch(/<details[^>]* open>/);
    expect(folded).toContain("--expand");
    const open = renderComparisonHtml(comparison, { expand: true });
    expect(open.match(/<details class="object"[^>]* open>/g)).toHaveLength(5);
  });

  it("html: one document with nothing to load, every string escaped", () => {
    const hostile = object("g6", `<script>alert("x")</script> & 'co'`, {
      "field:f6": ["q", field(`<img src=x onerror=alert(1)>`)],
    });
    const html = renderComparisonHtml(
      compareInstances({
        from: side(`dev<b>`, [hostile]),
        to: side("prod", []),
        createdAt: "2026-01-01T00:00:00.000Z",
      }),
    );
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<(script|img|link|iframe|object)|<[^>]*\s(src|href|on\w+)=|url\(|@import/i);
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("<title>egp compare: dev&lt;b&gt; → prod</title>");
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
  });
});
