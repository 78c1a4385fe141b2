/*
 * Fitting markdown into GitHub's size limit for comment and issue bodies. GitHub counts characters;
 * a JS string's length counts UTF-16 code units, never fewer, so staying under it by length is safe.
 */

/** GitHub refuses a comment or issue body longer than this (LESSONS 10). */
export const GITHUB_BODY_LIMIT = 65_536;

/** Room kept for the closing fences and details tags and the notice added to a cut text. */
const CLOSING_ROOM = 600;

export interface Capped {
  text: string;
  /** Lines not shown (a partly kept line counts as cut). */
  cutLines: number;
  cutChars: number;
}

const FENCE = /^\s*(`{3,}|~{3,})/;

/** What must be closed at the end of `lines`: an open code fence, and `<details>` left open. */
function closers(lines: readonly string[]): string[] {
  let fence: string | undefined;
  let details = 0;
  for (const line of lines) {
    const match = FENCE.exec(line);
    if (match?.[1]) {
      if (!fence) fence = match[1];
      else if (match[1].startsWith(fence) && line.trim() === match[1]) fence = undefined;
      continue;
    }
    if (fence) continue;
    details += (line.match(/<details>/g) ?? []).length;
    details -= (line.match(/<\/details>/g) ?? []).length;
  }
  return [...(fence ? [fence] : []), ...Array<string>(Math.max(0, details)).fill("</details>")];
}

/** Cuts before a lone surrogate, so that a cut never leaves half an emoji. */
function sliceSafe(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

/**
 * Keeps whole lines from the start while they fit in `limit`, closes what they leave open, and says
 * what was cut and where the whole text is. The same input always gives the same output.
 */
export function capMarkdown(text: string, limit: number, whereWhole: string): Capped {
  if (text.length <= limit) return { text, cutLines: 0, cutChars: 0 };
  const lines = text.split("\n");
  const budget = Math.max(0, limit - CLOSING_ROOM - whereWhole.length);
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length + 1 > budget) break;
    kept.push(line);
    used += line.length + 1;
  }
  if (kept.length === 0) kept.push(sliceSafe(lines[0] ?? "", budget));
  const shown = kept.join("\n");
  const cutLines = lines.length - kept.length + (kept[0] !== lines[0] ? 1 : 0);
  const cutChars = text.length - shown.length;
  const notice = `> **Cut:** ${cutLines} line(s) (${cutChars} characters) are not shown, to stay within GitHub's ${GITHUB_BODY_LIMIT}-character limit. ${whereWhole}`;
  const capped = [shown, ...closers(kept), "", notice].join("\n");
  return { text: capped, cutLines, cutChars };
}

/** A fence longer than any backtick run in `text`, so that the text can't close it early. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return "`".repeat(Math.max(3, longest + 1));
}
