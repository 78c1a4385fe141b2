import { printable } from "./printable.ts";

/*
 * What the markdown renderers (a plan's pull-request comment, compare's markdown report) share:
 * escaping for the HTML GitHub allows in markdown, code that no name can close, and a folded `diff`
 * block. A name from a manifest or an instance is only ever written inside code: in a fence, in an
 * inline code span, or in `<code>` within egp's own HTML, so that it can't become an image, a link,
 * a mention, bold text or an HTML comment that hides the rest of the comment.
 */

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** The longest run of backticks in the texts. */
function longestBacktickRun(texts: readonly string[]): number {
  let longest = 0;
  for (const text of texts) for (const [run] of text.matchAll(/`+/g)) longest = Math.max(longest, run.length);
  return longest;
}

/** A fence longer than any run of backticks in the lines (and at least three), so that none closes it. */
export function fenceFor(texts: readonly string[]): string {
  return "`".repeat(Math.max(3, longestBacktickRun(texts) + 1));
}

/**
 * Inline code that shows `text` on one line as it is: delimited by a backtick run longer than any
 * inside, padded with a space where the text starts or ends with a backtick or a space (CommonMark
 * strips one space from each side).
 */
export function code(text: string): string {
  const shown = printable(text);
  const ticks = "`".repeat(longestBacktickRun([shown]) + 1);
  const pad = /^[ `]|[ `]$/.test(shown) || shown === "" ? " " : "";
  return `${ticks}${pad}${shown}${pad}${ticks}`;
}

/** `text` inside egp's own HTML (a `<summary>`): in `<code>`, escaped, on one line. */
export function htmlCode(text: string): string {
  return `<code>${escapeHtml(printable(text))}</code>`;
}

/** `<details>` with `summary` (in code), and the lines in a `diff` fence: a reviewer opens what they need. */
export function foldedDiff(summary: string, lines: readonly string[]): string {
  const shown = lines.map(printable);
  const fence = fenceFor(shown);
  return [
    `<details><summary>${htmlCode(summary)}</summary>`,
    "",
    `${fence}diff`,
    ...shown,
    fence,
    "",
    "</details>",
    "",
  ].join("\n");
}
