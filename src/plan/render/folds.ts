/*
 * What the markdown renderers (a plan's pull-request comment, compare's markdown report) share:
 * escaping for the HTML GitHub allows in markdown, and a folded `diff` block.
 */

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** A fence longer than any run of backticks in the lines, so that none of them closes it. */
export function fenceFor(texts: readonly string[]): string {
  return texts.some((text) => text.includes("```")) ? "````" : "```";
}

/** `<details>` with `summary`, and the lines in a `diff` fence: a reviewer opens what they need. */
export function foldedDiff(summary: string, lines: readonly string[]): string {
  const fence = fenceFor(lines);
  return [
    `<details><summary>${escapeHtml(summary)}</summary>`,
    "",
    `${fence}diff`,
    ...lines,
    fence,
    "",
    "</details>",
    "",
  ].join("\n");
}
