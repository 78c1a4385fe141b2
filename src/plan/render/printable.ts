/*
 * Names and messages from manifests and instances are data (DESIGN §3, mixed trust). On a terminal
 * a control character in one could hide text (`ESC[8m`), clear the screen, set the title or, as a
 * line break, forge a line of its own; in markdown a line break ends the code a name is kept in.
 * Every renderer and every line the CLI prints passes such text through `printable` first, before
 * egp adds its own colours.
 */

/**
 * C0 (line breaks and ESC included), DEL and C1 (`\x9b` is a CSI on some terminals), the Unicode
 * line and paragraph separators, and the bidirectional marks and overrides that reorder what is
 * shown ("Trojan Source").
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escaped(character: string): string {
  const short = SHORT[character];
  if (short) return short;
  const code = character.charCodeAt(0);
  const hex = code.toString(16).padStart(code > 0xff ? 4 : 2, "0");
  return code > 0xff ? `\\u${hex}` : `\\x${hex}`;
}

/** The text on one line with every control character written as an escape (`\n`, `\x1b`, `\u202e`). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/** `printable` for each line of a text egp wrote, keeping its own line breaks. */
export function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}
