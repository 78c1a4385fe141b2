import MarkdownIt, { type Token } from "markdown-it";

/*
 * Markdown as GitHub reads a comment: CommonMark with raw HTML and bare URLs linked. What a name
 * must never become there: an image, a link, HTML of its own (a comment hides the rest of the
 * plan), or text outside code (a mention pings, bold text forges a verdict).
 */

const parser = new MarkdownIt({ html: true, linkify: true });

/** The tags egp itself writes in its markdown. */
const OWN_TAGS = new Set(["details", "summary", "sub", "code"]);

/** Raw HTML with what egp keeps inside `<code>` taken out. */
function outsideCode(html: string): string {
  return html.replace(/<code>[^<]*<\/code>/g, "");
}

function htmlLeaks(token: Token, needles: readonly string[]): string[] {
  const html = outsideCode(token.content);
  const found: string[] = [];
  if (html.includes("<!--")) found.push(`${token.type} with an HTML comment: ${JSON.stringify(html)}`);
  for (const [, tag] of html.matchAll(/<\/?([A-Za-z][\w-]*)/g))
    if (!OWN_TAGS.has(tag?.toLowerCase() ?? "")) found.push(`${token.type} with <${tag}>`);
  for (const needle of needles)
    if (html.includes(needle)) found.push(`${token.type} shows ${JSON.stringify(needle)} outside code`);
  return found;
}

function leaksIn(tokens: readonly Token[], needles: readonly string[]): string[] {
  return tokens.flatMap((token) => {
    const found: string[] = [];
    if (token.type === "image") found.push(`image ${token.attrGet("src")}`);
    if (token.type === "link_open") found.push(`link ${token.attrGet("href")}`);
    if (token.type === "html_block" || token.type === "html_inline") found.push(...htmlLeaks(token, needles));
    if (token.type === "text")
      for (const needle of needles)
        if (token.content.includes(needle))
          found.push(`text ${JSON.stringify(token.content)} shows ${JSON.stringify(needle)} outside code`);
    return [...found, ...leaksIn(token.children ?? [], needles)];
  });
}

/**
 * What of the markdown escapes code: images, links, foreign HTML, and text tokens (outside inline
 * code and fences) or raw HTML (outside `<code>`) holding one of `needles`. Empty when nothing does.
 */
export function markdownLeaks(markdown: string, needles: readonly string[]): string[] {
  return leaksIn(parser.parse(markdown, {}), needles);
}

/** The text of every fenced block, as a reader sees it. */
export function fencedText(markdown: string): string {
  return parser
    .parse(markdown, {})
    .filter((token) => token.type === "fence")
    .map((token) => token.content)
    .join("");
}
