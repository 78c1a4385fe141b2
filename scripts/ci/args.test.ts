import { describe, expect, it } from "vitest";
import { splitArgs } from "./args.ts";

describe("splitArgs", () => {
  it("splits on any whitespace, newlines included", () => {
    expect(splitArgs("  plan --env prod\n  --format markdown ")).toEqual([
      "plan",
      "--env",
      "prod",
      "--format",
      "markdown",
    ]);
  });

  it("groups quoted words and keeps empty quoted arguments", () => {
    expect(splitArgs(`apply --env prod "my plan.json" 'a "b"' ""`)).toEqual([
      "apply",
      "--env",
      "prod",
      "my plan.json",
      'a "b"',
      "",
    ]);
    expect(splitArgs(String.raw`a\ b "c\"d" 'e\f'`)).toEqual(["a b", 'c"d', String.raw`e\f`]);
  });

  it("expands nothing", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the point is that it stays text.
    expect(splitArgs("plan $(rm -rf /) ${HOME} `id`")).toEqual([
      "plan",
      "$(rm",
      "-rf",
      "/)",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the point is that it stays text.
      "${HOME}",
      "`id`",
    ]);
  });

  it("refuses an unterminated quote", () => {
    expect(() => splitArgs(`plan "prod`)).toThrow('args: unterminated " quote');
  });
});
