import { describe, expect, it } from "vitest";
import { capMarkdown, fenceFor } from "./cap.ts";

const WHERE = "The whole plan is in the artifact.";

function fences(text: string): number {
  return text.split("\n").filter((line) => /^\s*(```|~~~)/.test(line)).length;
}

describe("capMarkdown", () => {
  it("leaves a text within the limit as it is", () => {
    expect(capMarkdown("a\nb\n", 10, WHERE)).toEqual({ text: "a\nb\n", cutLines: 0, cutChars: 0 });
  });

  it("keeps whole lines within the limit and says how many lines and characters it cut", () => {
    const lines = Array.from(
      { length: 1000 },
      (_, i) => `line ${String(i).padStart(4, "0")} ${"x".repeat(40)}`,
    );
    const text = lines.join("\n");
    const capped = capMarkdown(text, 5_000, WHERE);
    expect(capped.text.length).toBeLessThanOrEqual(5_000);
    const kept = capped.text.split("\n").filter((line) => line.startsWith("line "));
    expect(kept).toEqual(lines.slice(0, kept.length));
    expect(capped.cutLines).toBe(1000 - kept.length);
    expect(capped.cutChars).toBe(text.length - kept.join("\n").length);
    expect(
      capped.text.endsWith(
        `> **Cut:** ${capped.cutLines} line(s) (${capped.cutChars} characters) are not shown, to stay within GitHub's 65536-character limit. ${WHERE}`,
      ),
    ).toBe(true);
    expect(capMarkdown(text, 5_000, WHERE)).toEqual(capped);
  });

  it("closes a code fence and details left open by the cut", () => {
    const text = [
      "<details><summary>User (900)</summary>",
      "",
      "````diff",
      ...Array(900).fill('+ User "u"  ```'),
      "````",
      "</details>",
    ].join("\n");
    const capped = capMarkdown(text, 3_000, WHERE);
    expect(capped.text.length).toBeLessThanOrEqual(3_000);
    expect(fences(capped.text) % 2).toBe(0);
    const tail = capped.text.split("\n");
    const notice = tail.findIndex((line) => line.startsWith("> **Cut:**"));
    expect(tail.slice(notice - 3, notice)).toEqual(["````", "</details>", ""]);
  });

  it("does not close a fence or details that the kept text already closed", () => {
    const block = ["<details>", "```", "x", "```", "</details>"].join("\n");
    const text = `${block}\n${"y".repeat(80)}\n`.repeat(200);
    const capped = capMarkdown(text, 2_000, WHERE);
    expect(capped.text).not.toMatch(/\n```\n\n> \*\*Cut/);
    expect(capped.text.split("</details>").length).toBe(capped.text.split("<details>").length);
  });

  it("cuts inside a single line longer than the limit without splitting a surrogate pair", () => {
    const text = "😀".repeat(10_000);
    const capped = capMarkdown(text, 2_000, WHERE);
    expect(capped.text.length).toBeLessThanOrEqual(2_000);
    expect(capped.cutLines).toBe(1);
    expect(capped.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});

describe("fenceFor", () => {
  it("is longer than any backtick run in the text", () => {
    expect(fenceFor("plain")).toBe("```");
    expect(fenceFor("has ``` inside")).toBe("````");
    expect(fenceFor("has ````` inside")).toBe("``````");
  });
});
