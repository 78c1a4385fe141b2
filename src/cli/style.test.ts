// biome-ignore-all lint/suspicious/noControlCharactersInRegex: the assertions are about terminal escapes.
import { describe, expect, it } from "vitest";
import { paintPlan, styleOf, wantsColour } from "./style.ts";

describe("colour", () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };

  it("follows --no-color, then NO_COLOR, then FORCE_COLOR, then whether the stream is a terminal", () => {
    expect(wantsColour(tty, {}, {})).toBe(true);
    expect(wantsColour(pipe, {}, {})).toBe(false);
    expect(wantsColour(tty, { color: false }, { FORCE_COLOR: "1" })).toBe(false);
    expect(wantsColour(tty, {}, { NO_COLOR: "1" })).toBe(false);
    expect(wantsColour(tty, {}, { NO_COLOR: "" })).toBe(true);
    expect(wantsColour(pipe, {}, { FORCE_COLOR: "1" })).toBe(true);
    expect(wantsColour(tty, {}, { FORCE_COLOR: "0" })).toBe(false);
    expect(wantsColour(tty, {}, { TERM: "dumb" })).toBe(false);
  });

  it("paints a plan's lines by their mark and leaves its words alone", () => {
    const text = '  + User "a"\n      ~ title: "x" -> "y"\n  # User "b" will be DELETED\nPlan: 1 to add.\n';
    const painted = paintPlan(text, styleOf(true));
    expect(painted).toContain('\x1b[32m  + User "a"\x1b[39m');
    expect(painted).toContain('\x1b[33m      ~ title: "x" -> "y"\x1b[39m');
    expect(painted).toContain('\x1b[31m  # User "b" will be DELETED\x1b[39m');
    expect(painted.replace(/\x1b\[\d+m/g, "")).toBe(text);
    expect(paintPlan(text, styleOf(false))).toBe(text);
  });
});
