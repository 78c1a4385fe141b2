import { type DestinationStream, type Logger, pino } from "pino";
import { printable } from "../plan/index.ts";
import { type Colour, type Style, styleOf } from "./style.ts";

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

const WORD: Record<number, [string, Colour]> = {
  10: ["trace", "gray"],
  20: ["debug", "gray"],
  30: ["info", "cyan"],
  40: ["warning", "yellow"],
  50: ["error", "red"],
  60: ["fatal", "red"],
};

/** Fields every record has, or that name egp's own parts: not worth a person's attention. */
const QUIET = new Set(["level", "time", "pid", "hostname", "msg", "component", "name"]);

/**
 * A log record in words: `warning: message (key: value, …)`, as egp's other messages are written.
 * Its message and values may carry names and the instance's words: printable, before the colour.
 */
export function inWords(record: Record<string, unknown>, style: Style): string {
  const [word, colour] = WORD[Number(record.level)] ?? ["log", "gray"];
  const fields = Object.entries(record)
    .filter(([key, value]) => !QUIET.has(key) && value !== undefined)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
  const tail = fields.length > 0 ? ` (${fields.join(", ")})` : "";
  return `${style.paint(colour, `${word}:`)} ${printable(`${String(record.msg ?? "")}${tail}`)}\n`;
}

let diverted: ((line: string) => void) | undefined;

/**
 * While apply's live view redraws the terminal, a log line written straight to it would be drawn
 * over; the view takes the lines in words instead, and prints them above its running steps.
 * `undefined` gives them back to stderr.
 */
export function divertLogs(write: ((line: string) => void) | undefined): void {
  diverted = write;
}

/** A pino destination that writes each record in words to stderr. */
function wordsDestination(style: Style): DestinationStream {
  return {
    write(line: string) {
      const text = inWords(JSON.parse(line) as Record<string, unknown>, style);
      if (diverted) diverted(text.trimEnd());
      else process.stderr.write(text);
    },
  };
}

/** A logger whose records are sentences on stderr (or in the live view, while it runs). */
export function wordsLogger(level: string, style: Style): Logger {
  return pino({ level }, wordsDestination(style));
}

/**
 * Logs go to stderr, so that stdout carries only the command's output (a plan, a report). On a
 * terminal a person reads them, in words (`warning: …`); in CI and with --json they are one JSON
 * object per line, for machines.
 */
export function createLogger(level: string, json: boolean, colour = false): Logger {
  const chosen = LEVELS.has(level) ? level : "warn";
  if (process.stderr.isTTY && !json) return wordsLogger(chosen, styleOf(colour));
  return pino({ level: chosen }, pino.destination({ dest: 2, sync: true }));
}
