import { catalogueOf } from "../catalogue/model.ts";
import {
  type EntitySet,
  type EntityView,
  entitySet,
  entitySets,
  entityView,
} from "../content/content-api.ts";
import { allRecords, contentOf, recordOf } from "../content/model.ts";
import { canRead, requireAccess, sessionUser } from "../content/permissions.ts";
import { badRequest, HttpFailure, message } from "../failure.ts";
import { applyODataQuery, parseODataQuery } from "../odata.ts";
import type { RouteContext, Routes } from "../router.ts";

/*
 * The Content API (`/contentapi/`), beyond the interface description: the OData service real
 * instances serve beside the REST interface, read by integrations. Built on the same store as the
 * REST content reads, with the same permissions and the same OData evaluator. Answers are OData
 * JSON (`@odata.context` and a `value` array), also for a read by key; failures are the REST
 * envelopes. Choices: docs/emulator.md, "The Content API".
 */

const OPTION_NAMES = ["filter", "select", "top", "skip", "orderby", "count"];
/** Records per answer when the caller gives no `$top`, as real instances serve them. */
const PAGE_SIZE = 1000;

/** `Risk(1002)` → set `Risk`, key 1002; `Risk` → no key. */
function parseEntityPath(text: string): { set: string; key?: number } {
  const match = /^([^()]+)(?:\(([^()]*)\))?$/.exec(text);
  if (!match) throw unknownSet(text);
  const set = match[1] as string;
  if (match[2] === undefined) return { set };
  if (!/^\d{1,9}$/.test(match[2]) || Number(match[2]) === 0) {
    throw badRequest(
      "InvalidId",
      `The key of ${set} must be a positive integer, not "${match[2].slice(0, 40)}".`,
    );
  }
  return { set, key: Number(match[2]) };
}

function unknownSet(name: string): HttpFailure {
  return new HttpFailure(
    404,
    message("EntitySetNotFound", `No entity set is named ${name.slice(0, 100)}.`, {
      erroredValue: name.slice(0, 100),
    }),
  );
}

/**
 * The query's options, each as `$name`: public clients send `top` and `skip` without the `$`, as
 * the OData service of real instances accepts them. One given both ways is refused by the parser.
 */
function queryOptions(query: RouteContext["query"]): RouteContext["query"] {
  const out: RouteContext["query"] = {};
  for (const [key, value] of Object.entries(query)) {
    const bare = OPTION_NAMES.includes(key.toLowerCase()) ? `$${key}` : key;
    const existing = out[bare];
    out[bare] = existing === undefined ? value : [existing, value].flat().filter((v) => v !== undefined);
  }
  return out;
}

/** The service's address as the caller reached it, for `@odata.context`. */
function serviceUrl(ctx: RouteContext): string {
  return `${ctx.req.protocol}://${ctx.req.headers.host ?? "localhost"}/contentapi`;
}

function send(ctx: RouteContext, body: unknown): undefined {
  ctx.reply
    .type("application/json; odata.metadata=minimal; charset=utf-8")
    .header("odata-version", "4.0")
    .send(JSON.stringify(body));
  return undefined;
}

function serviceDocument(ctx: RouteContext): undefined {
  const value = entitySets(catalogueOf(ctx.store)).map(({ name }) => ({
    name,
    kind: "EntitySet",
    url: name,
  }));
  return send(ctx, { "@odata.context": `${serviceUrl(ctx)}/$metadata`, value });
}

function entities(ctx: RouteContext): undefined {
  const { set, key } = parseEntityPath(ctx.params.entity ?? "");
  const catalogue = catalogueOf(ctx.store);
  const found = entitySet(catalogue, set);
  if (!found) throw unknownSet(set);
  const { name, level } = found;
  const view = entityView(catalogue, found);
  const options = queryOptions(ctx.query);
  const context = `${serviceUrl(ctx)}/$metadata#${name}`;
  if (key !== undefined)
    return send(ctx, { "@odata.context": context, value: [byKey(ctx, found, view, key, options)] });
  const { count, rest } = countOption(options);
  const query = parseODataQuery(rest, view.spec);
  const userId = sessionUser(ctx.session);
  const rows = allRecords(contentOf(ctx.store)).filter(
    (record) => record.LevelId === level.Id && canRead(ctx.store, userId, record),
  );
  // Without `$top` the service pages itself, as OData services do: a full page names the next one.
  const paged = query.top === undefined ? { ...query, top: PAGE_SIZE + 1 } : query;
  const matched = applyODataQuery(rows, paged, view.fieldOf);
  const more = query.top === undefined && matched.length > PAGE_SIZE;
  // The total counts every record the filter matches, whatever the page, as OData's `$count` does.
  const total = count
    ? { "@odata.count": applyODataQuery(rows, { ...query, skip: 0, top: undefined }, view.fieldOf).length }
    : {};
  const value = matched.slice(0, more ? PAGE_SIZE : undefined).map((record) => view.present(record, query));
  const next = more ? { "@odata.nextLink": nextLink(ctx, name, options, query.skip + PAGE_SIZE) } : {};
  return send(ctx, { "@odata.context": context, ...total, value, ...next });
}

/**
 * `$count=true` asks for the total of matching records beside the page; `false` is the default.
 * The other options go on to the OData parser, which refuses what it does not serve.
 */
function countOption(options: RouteContext["query"]): { count: boolean; rest: RouteContext["query"] } {
  const rest = { ...options };
  const key = Object.keys(rest).find((name) => name.toLowerCase() === "$count");
  if (key === undefined) return { count: false, rest };
  const raw = rest[key];
  delete rest[key];
  if (Array.isArray(raw)) throw badRequest("InvalidQuery", `${key}: is given more than once.`);
  if (raw !== "true" && raw !== "false") {
    throw badRequest("InvalidQuery", `${key}: must be true or false.`, String(raw).slice(0, 40));
  }
  return { count: raw === "true", rest };
}

/** The address of the next page: the same options, `$skip` moved on. */
function nextLink(ctx: RouteContext, set: string, options: RouteContext["query"], skip: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(options)) {
    if (key.toLowerCase() === "$skip" || value === undefined) continue;
    for (const item of [value].flat()) params.append(key, item);
  }
  params.set("$skip", String(skip));
  return `${serviceUrl(ctx)}/${set}?${params.toString().replace(/%24/g, "$")}`;
}

function byKey(
  ctx: RouteContext,
  { name, level }: EntitySet,
  view: EntityView,
  key: number,
  options: RouteContext["query"],
) {
  const counted = Object.keys(options).find((name) => name.toLowerCase() === "$count");
  if (counted !== undefined) {
    throw badRequest("InvalidQuery", `${counted}: is not allowed here: this call takes only $select.`);
  }
  const query = parseODataQuery(options, view.spec, { allow: ["$select"] });
  const record = recordOf(contentOf(ctx.store), key);
  if (!record || record.LevelId !== level.Id) {
    throw new HttpFailure(
      404,
      message("ContentNotFound", `${name} has no record ${key}.`, { erroredValue: key }),
    );
  }
  requireAccess(ctx.store, ctx.session, record);
  return view.present(record, query);
}

export function registerContentApi(routes: Routes): void {
  const options = { family: "root", integration: true, cookie: true } as const;
  routes.read("/contentapi", serviceDocument, options);
  routes.read("/contentapi/:entity", entities, { ...options, odata: true });
}
