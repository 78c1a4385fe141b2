import { describe, expect, it } from "vitest";
import { attribute, child, decodeEntities, escapeXml, parseXml, tag } from "./xml.ts";

describe("parseXml", () => {
  it("reads elements, attributes, text and namespaces", () => {
    const root = parseXml(
      '<?xml version="1.0" encoding="utf-8"?>\n<!-- a comment -->' +
        '<s:Envelope xmlns:s="urn:s" xmlns="urn:d"><s:Body><Op a="1" s:b=\'two\'>hi<x/>there</Op></s:Body></s:Envelope>',
    );
    expect(root).toMatchObject({ local: "Envelope", ns: "urn:s" });
    const op = root.children[0]?.children[0];
    expect(op).toMatchObject({ local: "Op", ns: "urn:d", text: "hithere" });
    expect(op && attribute(op, "B")).toBe("two");
    expect(op?.attributes.a).toBe("1");
    expect(op?.children[0]).toMatchObject({ local: "x", ns: "urn:d", text: "" });
  });

  it("keeps CDATA as is and decodes the predefined entities and character references", () => {
    const root = parseXml("<a><![CDATA[<b>&amp;</b>]]>&lt;&#65;&#x42;&quot;&apos;&gt;&amp;</a>");
    expect(root.text).toBe("<b>&amp;</b><AB\"'>&");
    expect(parseXml('<a t="&lt;x&gt;"/>').attributes.t).toBe("<x>");
  });

  it("refuses a DOCTYPE, so that no entity is ever expanded", () => {
    expect(() => parseXml('<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>')).toThrow(/DOCTYPE/);
    expect(() => parseXml("<a><!DOCTYPE b></a>")).toThrow(/declaration/);
  });

  it("refuses references it does not know and a bare '&'", () => {
    expect(() => parseXml("<a>&nbsp;</a>")).toThrow(/entity other than the five/);
    expect(() => parseXml("<a>fish & chips</a>")).toThrow(/'&'/);
    expect(() => parseXml("<a>&#0;</a>")).toThrow(/to no character/);
    expect(() => parseXml("<a>&#xD800;</a>")).toThrow(/to no character/);
  });

  it("refuses markup that is not well formed", () => {
    expect(() => parseXml("<a><b></a></b>")).toThrow(/<\/a> closes <b>/);
    expect(() => parseXml("<a>")).toThrow(/not closed/);
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow(/given twice/);
    expect(() => parseXml('<a x="<"/>')).toThrow(/inside an attribute/);
    expect(() => parseXml("<a x=1/>")).toThrow(/quoted/);
    expect(() => parseXml("<p:a/>")).toThrow(/prefix 'p' is not declared/);
    expect(() => parseXml("<a/><b/>")).toThrow(/after the root/);
    expect(() => parseXml("just text")).toThrow(/no root/);
    expect(() => parseXml("<a><![CDATA[x</a>")).toThrow(/unterminated CDATA/);
    expect(() => parseXml("<a>]]></a>")).toThrow(/']]>'/);
  });

  it("bounds size, depth, elements and attributes without recursing", () => {
    expect(() => parseXml(`<a>${"x".repeat(100)}</a>`, { maxChars: 50 })).toThrow(/longer than 50/);
    const deep = `${"<a>".repeat(100_000)}${"</a>".repeat(100_000)}`;
    expect(() => parseXml(deep, { maxChars: 10_000_000 })).toThrow(/nest too deeply/);
    expect(() => parseXml(`<r>${"<a/>".repeat(30)}</r>`, { maxElements: 20 })).toThrow(/too many elements/);
    const attrs = Array.from({ length: 70 }, (_, i) => `a${i}="1"`).join(" ");
    expect(() => parseXml(`<r ${attrs}/>`)).toThrow(/too many attributes/);
  });

  it("finds children case-insensitively", () => {
    const root = parseXml("<r><SessionToken>t</SessionToken></r>");
    expect(root && child(root, "sessiontoken")?.text).toBe("t");
  });
});

describe("writing XML", () => {
  it("escapes text so that it reads back the same", () => {
    const text = `<&>"' tab\t line\n`;
    expect(parseXml(tag("a", { v: text }, escapeXml(text)))).toMatchObject({ text, attributes: { v: text } });
  });

  it("replaces characters XML 1.0 cannot hold", () => {
    expect(escapeXml("a\u0001b\uFFFF")).toBe("a\uFFFDb\uFFFD");
  });

  it("decodes nothing when there is no reference", () => {
    expect(decodeEntities("plain")).toBe("plain");
  });
});
