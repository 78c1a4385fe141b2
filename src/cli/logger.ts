import { type Logger, pino } from "pino";

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/**
 * Logs go to stderr, so that stdout carries only the command's output (a plan, a report). On a TTY
 * they are pretty-printed; in CI and with --json they are one JSON object per line.
 */
export function createLogger(level: string, json: boolean): Logger {
  const chosen = LEVELS.has(level) ? level : "warn";
  if (process.stderr.isTTY && !json) {
    return pino({
      level: chosen,
      transport: {
        target: "pino-pretty",
        options: { destination: 2, colorize: true, ignore: "pid,hostname" },
      },
    });
  }
  return pino({ level: chosen }, pino.destination({ dest: 2, sync: true }));
}
