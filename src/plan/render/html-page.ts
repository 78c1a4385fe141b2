import { escapeHtml } from "./folds.ts";

/*
 * The self-contained HTML pages egp writes (`compare --format html`, `status --format html`): readable
 * offline and without JavaScript. The styles are inline, there are no scripts, images or links to
 * anything, and a Content-Security-Policy forbids loading anything at all. Every string from an
 * instance or a repository is escaped by the caller, with `escapeHtml`.
 */

export const BASE_STYLE = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
body { margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1f2328; background: #fff; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #d0d7de; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td ul { margin: 0; padding-left: 1.1rem; }
td.count { text-align: right; font-variant-numeric: tabular-nums; }
details { border: 1px solid #d0d7de; border-radius: 6px; margin: 0.5rem 0; padding: 0.4rem 0.8rem; }
details[open] > summary { margin-bottom: 0.5rem; }
summary { cursor: pointer; font-weight: 600; }
.badge { display: inline-block; border-radius: 1rem; padding: 0 0.6rem; font-size: 0.85em; font-weight: 600; }
.muted { color: #57606a; }
`;

export const CSP = "default-src 'none'; style-src 'unsafe-inline'";

/** A coloured label; `kind` is egp's own class name, `text` is escaped. */
export function badge(kind: string, text: string): string {
  return `<span class="badge ${kind}">${escapeHtml(text)}</span>`;
}

/** The whole page: `title` is escaped, `body` is HTML the caller escaped, `style` is added to the base. */
export function htmlPage(title: string, style: string, body: readonly string[]): string {
  return `${[
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${BASE_STYLE}${style}</style>`,
    "</head>",
    "<body>",
    `<h1>${escapeHtml(title)}</h1>`,
    ...body,
    "</body>",
    "</html>",
  ].join("\n")}\n`;
}
