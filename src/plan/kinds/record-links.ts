import type { RecordFieldValue } from "../../manifest/kinds/record.ts";
import { type Resolved, sameSet, type ValueProblem } from "./record-value-base.ts";

/*
 * An external links field: written as a list of `{ name, url }`, sent as `[{Name, URL}]`, compared
 * as a set of (name, url) pairs. A link written without a name takes its url as its name, as the
 * platform names it. A url must be absolute (`https://…`).
 */

const FORM = "an external links field takes a list of { name, url }";

interface Link {
  name: string;
  url: string;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A mapping's value by name, its key compared without regard to case (`URL`, `url`). */
function keyed(value: Record<string, unknown>, name: string): unknown {
  const key = Object.keys(value).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : value[key];
}

function linkOf(item: unknown, index: number): Link | string {
  if (!isMapping(item)) return `${FORM}: item ${index} is not a mapping`;
  const extra = Object.keys(item).find((key) => key !== "name" && key !== "url");
  if (extra !== undefined) return `${FORM}: item ${index} has "${extra}"`;
  const { name, url } = item;
  if (typeof url !== "string" || !URL.canParse(url.trim()))
    return `${FORM}: item ${index}'s url must be an absolute URL (https://…)`;
  if (name !== undefined && name !== null && typeof name !== "string")
    return `${FORM}: item ${index}'s name must be text`;
  const text = url.trim();
  return { name: typeof name === "string" && name.trim() !== "" ? name.trim() : text, url: text };
}

function linksOf(desired: RecordFieldValue): Link[] | string {
  if (desired === null) return [];
  if (!Array.isArray(desired)) return FORM;
  const links: Link[] = [];
  for (const [index, item] of desired.entries()) {
    const link = linkOf(item, index);
    if (typeof link === "string") return link;
    links.push(link);
  }
  return links;
}

/** The live links, as the Content API gives them (`[{Name, URL}]`, or nothing). */
function liveLinks(live: unknown): Link[] {
  if (!Array.isArray(live)) return [];
  return live.filter(isMapping).map((item) => {
    const url = String(keyed(item, "url") ?? "");
    const name = keyed(item, "name");
    return { name: typeof name === "string" && name !== "" ? name : url, url };
  });
}

const pair = (link: Link) => `${link.name}\u0000${link.url}`;

export function resolveLinks(desired: RecordFieldValue, live: unknown): Resolved | ValueProblem {
  const links = linksOf(desired);
  if (typeof links === "string") return { problem: "invalid", message: links };
  const current = liveLinks(live);
  return {
    wire: links.length === 0 ? null : links.map((link) => ({ Name: link.name, URL: link.url })),
    same: sameSet(links.map(pair), current.map(pair)),
    before: current.length === 0 ? null : current,
  };
}
