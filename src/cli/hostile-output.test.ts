// biome-ignore-all lint/suspicious/noControlCharactersInRegex: the assertions are about terminal escapes.
import { describe, expect, it } from "vitest";
import type { ApplyEvent } from "../apply/index.ts";
import { PlatformError } from "../client/errors.ts";
import type { Step } from "../plan/index.ts";
import { applyOutput, eventLine, eventLog } from "./apply-output.ts";
import { LiveView } from "./live-view.ts";
import { inWords } from "./logger.ts";
import { styleOf } from "./style.ts";
import { describeUserError } from "./user-errors.ts";

/*
 * What an instance writes (names, ValidationMessages) reaches apply's live view, its log, the logs
 * in words and the error line with its control characters escaped; egp's own colours and cursor
 * moves are the only escapes left.
 */

const HOSTILE = "x\x1b[8m\x1b]0;pwned\x07\x1b[2J\nApply complete\u009b2J";
const SHOWN = "x\\x1b[8m\\x1b]0;pwned\\x07\\x1b[2J\\nApply complete\\x9b2J";

const step: Step = {
  id: `User/${HOSTILE}#create`,
  change: "c1",
  op: "user.create",
  environment: "prod",
  dependsOn: [],
  input: {},
};
const error = { code: "EGP_REQUEST_FAILED", message: `refused: ${HOSTILE}` };
const events: ApplyEvent[] = [
  { type: "start", step },
  { type: "progress", step, message: `waiting for ${HOSTILE}` },
  { type: "retry", step, attempt: 1, error },
  { type: "failed", step, error },
] as ApplyEvent[];

/** The escapes the live view itself writes: colours, carriage return, cursor up, clear to the end. */
const OWN = /\x1b\[\d+m|\r|\x1b\[\d+A|\x1b\[J|\n/g;

describe("apply's output on a terminal", () => {
  it("shows step names, messages and errors escaped in the live view, coloured by egp", () => {
    let written = "";
    const view = new LiveView({ write: (text) => (written += text), columns: () => 400 }, styleOf(true));
    for (const event of events) view.event(event);
    view.close();
    expect(written.replace(OWN, "")).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(written).toContain(`FAILED: EGP_REQUEST_FAILED refused: ${SHOWN}`);
    expect(written).toContain("\x1b[31m✗");
  });

  it("shows them escaped in the log of one line per event, and in the summary", () => {
    const log = eventLog();
    const shown = events.map((event) => eventLine(log, event) ?? "").join("\n");
    expect(shown).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    expect(shown).toContain(`User/${SHOWN}#create (prod): FAILED: EGP_REQUEST_FAILED refused: ${SHOWN}`);
    let out = "";
    const output = applyOutput({
      json: false,
      tty: false,
      style: styleOf(false),
      renderPlan: () => "",
      stdout: (text) => (out += text),
    });
    output.say(`Reading the live state failed (${HOSTILE})`);
    output.summary({
      result: "incomplete",
      environment: "prod",
      plan: "p",
      added: 0,
      changed: 0,
      destroyed: 0,
      promoted: 0,
      failed: [{ step: step.id, code: error.code, error: error.message }],
      skipped: 0,
    });
    expect(out).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    expect(out).toContain(`  User/${SHOWN}#create: refused: ${SHOWN}\n`);
  });
});

describe("messages in words and errors", () => {
  it("escape a log record's message and values", () => {
    const line = inWords({ level: 40, msg: `skipped ${HOSTILE}`, user: HOSTILE }, styleOf(false));
    expect(line).toBe(`warning: skipped ${SHOWN} (user: ${SHOWN})\n`);
  });

  it("print an instance's ValidationMessages on one line, escaped", () => {
    const failure = new PlatformError({
      code: "EGP_REQUEST_FAILED",
      message: `POST /x: HTTP 200 not successful: ${HOSTILE}`,
      status: 200,
      method: "POST",
      path: "/x",
      validationMessages: [{ MessageKey: `Key${HOSTILE}`, Description: `other ${HOSTILE}` } as never],
    });
    const lines = describeUserError(failure)?.lines ?? [];
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(lines[0]).toContain(`not successful: ${SHOWN}`);
    expect(lines[0]).toContain(`Key${SHOWN}: other ${SHOWN}`);
  });
});
