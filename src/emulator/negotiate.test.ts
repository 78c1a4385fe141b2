import { describe, expect, it } from "vitest";
import { prefersXml, toXml } from "./negotiate.ts";

describe("prefersXml", () => {
  it("chooses XML only when Accept prefers it", () => {
    expect(prefersXml(undefined)).toBe(false);
    expect(prefersXml("application/xml")).toBe(true);
    expect(prefersXml("text/xml;q=0.9, application/json;q=0.5")).toBe(true);
    expect(prefersXml("application/json, application/xml")).toBe(false);
    expect(prefersXml("application/json ,text/plain, */*;q=0.8")).toBe(false);
    expect(prefersXml("application/xml;q=0, application/json")).toBe(false);
  });
});

describe("toXml", () => {
  it("writes envelopes, collections as Item elements, and maps with numeric keys as KeyValue pairs", () => {
    const xml = toXml({
      RequestedObject: { Id: 5, FieldContents: { "25": { Type: 1, Value: "a < b" } }, Tags: ["x", "y"] },
      IsSuccessful: true,
    });
    expect(xml).toContain("<ResponseEnvelope><RequestedObject><Id>5</Id>");
    expect(xml).toContain(
      "<FieldContents><KeyValue><Key>25</Key><Value><Type>1</Type><Value>a &lt; b</Value></Value></KeyValue></FieldContents>",
    );
    expect(xml).toContain("<Tags><Item>x</Item><Item>y</Item></Tags>");
    expect(xml).not.toMatch(/<\d/);
    expect(toXml([{ IsSuccessful: true }])).toContain("<ArrayOfResponseEnvelope><ResponseEnvelope>");
  });
});
