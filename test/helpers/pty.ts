// biome-ignore-all lint/suspicious/noControlCharactersInRegex: terminal escapes are what this file reads.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./cli.ts";

/*
 * The egp binary on a real pseudo-terminal: util-linux `script` opens one, runs egp on it and copies
 * everything egp writes there (stdout and stderr both) to its own stdout. No node-pty needed.
 */

const BIN = join(ROOT, "bin", "egp.js");

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export interface PtyRun {
  code: number;
  /** The bytes egp wrote to the terminal, escapes included. */
  raw: string;
}

export function egpOnPty(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; columns?: number },
): Promise<PtyRun> {
  const command = [
    // The pty starts with no size; a terminal has one.
    `stty cols ${options.columns ?? 120} rows 40 2>/dev/null;`,
    "exec",
    quote(process.execPath),
    quote(BIN),
    ...args.map(quote),
  ].join(" ");
  const env = { PATH: process.env.PATH ?? "", SHELL: "/bin/sh", TERM: "xterm-256color", ...options.env };
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: options.cwd,
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, raw: Buffer.concat(chunks).toString("utf8") }));
  });
}

const CSI = /^\x1b\[([0-9;?]*)([A-Za-z])/;

/**
 * What a terminal shows once `raw` has been written to it: the escapes egp uses (colours, cursor
 * up, clear to the end of the screen, carriage return) are applied; the result has no escapes.
 */
export function screenOf(raw: string): string {
  const rows: string[][] = [[]];
  let row = 0;
  let column = 0;
  let i = 0;
  while (i < raw.length) {
    const char = raw[i] ?? "";
    if (char === "\x1b") {
      const match = CSI.exec(raw.slice(i));
      if (!match) {
        i += 1;
        continue;
      }
      const [all, params = "", op] = match;
      if (op === "A") row = Math.max(0, row - Number(params || 1));
      if (op === "J") {
        rows[row] = (rows[row] ?? []).slice(0, column);
        rows.length = row + 1;
      }
      if (op === "K") rows[row] = (rows[row] ?? []).slice(0, column);
      i += all.length;
      continue;
    }
    i += 1;
    if (char === "\r") column = 0;
    else if (char === "\n") {
      row += 1;
      rows[row] ??= [];
    } else {
      const line = rows[row] ?? [];
      rows[row] = line;
      while (line.length < column) line.push(" ");
      line[column] = char;
      column += 1;
    }
  }
  return rows
    .map((line) => line.join("").trimEnd())
    .join("\n")
    .trimEnd();
}

/** Every SGR (colour) escape. */
export const COLOUR = /\x1b\[[0-9;]*m/;
