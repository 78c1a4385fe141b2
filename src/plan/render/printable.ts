/*
 * Names and messages from manifests and instances are data (DESIGN §3, mixed trust). On a terminal
 * a control character in one could hide text (`ESC[8m`), clear the screen, set the title or, as a
 * line break, forge a line of its own; in markdown a line break ends the code a name is kept in.
 * Every renderer and every line the CLI prints passes such text through `printable` first, before
 * egp adds its own colours.
 */

/**
 * C0 (line breaks and ESC included), DEL and C1 (`\x9b` is a CSI on some terminals), the Unicode
 * line and paragraph separators, the bidirectional marks and overrides that reorder what is shown
 * ("Trojan Source"), and the characters that show as nothing (zero-width space, joiners, word
 * joiner, soft hyphen, byte order mark, invisible operators), which make two names look alike.
 */
const UNPRINTABLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
  /[\x00-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u206f\ufeff]/g;

const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escaped(character: string): string {
  const short = SHORT[character];
  if (short) return short;
  const code = character.charCodeAt(0);
  const hex = code.toString(16).padStart(code > 0xff ? 4 : 2, "0");
  return code > 0xff ? `\\u${hex}` : `\\x${hex}`;
}

/** The text on one line with every control or invisible character written as an escape (`\n`, `\x1b`, `\u202e`, `\u200b`). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/** `printable` for each line of a text egp wrote, keeping its own line breaks. */
export function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}
