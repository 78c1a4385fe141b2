// biome-ignore-all lint/suspicious/noControlCharactersInRegex: the assertions are about terminal escapes.
import { describe, expect, it } from "vitest";
import type { Step } from "../plan/index.ts";
import { applyOutput } from "./apply-output.ts";
import { inWords, wordsLogger } from "./logger.ts";
import { styleOf } from "./style.ts";

const plain = styleOf(false);

describe("logs in words (a terminal)", () => {
  it("say the level as a word, the message, then the fields a person needs", () => {
    const record = {
      level: 40,
      time: 1,
      pid: 2,
      hostname: "h",
      component: "egp-client",
      url: "https://x",
      msg: "TLS is off",
    };
    expect(inWords(record, plain)).toBe("warning: TLS is off (url: https://x)\n");
    expect(inWords({ level: 50, msg: "failed", seconds: 3, env: { a: 1 } }, plain)).toBe(
      'error: failed (seconds: 3, env: {"a":1})\n',
    );
    expect(inWords({ level: 40, msg: "x" }, styleOf(true))).toBe("\x1b[33mwarning:\x1b[39m x\n");
  });

  it("go above apply's running steps while the live view redraws, and back to stderr after", () => {
    let screen = "";
    const output = applyOutput({
      json: false,
      tty: true,
      style: plain,
      renderPlan: () => "",
      stdout: (text) => (screen += text),
      columns: () => 100,
    });
    const step: Step = {
      id: "User/a#create",
      change: "User/a",
      op: "user.create",
      environment: "prod",
      dependsOn: [],
      input: {},
    };
    output.event({ type: "start", step });
    screen = "";
    wordsLogger("warn", plain).warn({ env: "prod" }, "still waiting for prod");
    expect(screen).toMatch(
      /^\r\x1b\[1A\x1b\[Jwarning: still waiting for prod \(env: prod\)\n⋯ User\/a#create \(prod\) \d+ ms\n$/,
    );
    output.stepsEnded();
  });
});
