import { ok } from "../envelope.ts";
import { badRequest, notFound } from "../failure.ts";
import type { FieldKind } from "../odata.ts";
import { pathId } from "../path-id.ts";
import type { RouteContext, Routes } from "../router.ts";
import { type DataFeed, type FeedMessage, type FeedRun, feedsOfSeed } from "../seeds/demo-datafeeds.ts";

/*
 * Data feed reads, beyond the interface description: the list of feeds (`core/datafeed`), a
 * feed's runs and its latest run (`core/datafeed/history`, `…/history/recent`, the feed's GUID in
 * the body of a POST with the GET override) and a run's messages
 * (`core/datafeed/historymessage/<id>`). Integrations that monitor feeds read them; the feeds are
 * the seed's fixed demo set and nothing writes them. Served with integrations on, like the other
 * surfaces beyond the description (docs/emulator.md, "Data feeds").
 */

const FEED_FIELDS: Readonly<Record<keyof DataFeed, FieldKind>> = {
  Id: "number",
  Guid: "string",
  Name: "string",
  Description: "string",
  Active: "boolean",
  LastRun: "datetime",
  NextRun: "datetime",
};

const RUN_FIELDS: Readonly<Record<keyof FeedRun, FieldKind>> = {
  Id: "number",
  DataFeedGuid: "string",
  JobId: "number",
  Status: "number",
  WasManuallyStarted: "boolean",
  StartTime: "datetime",
  EndTime: "datetime",
  SourceRecordsProcessed: "number",
  TargetRecords: "object",
  ChildRecords: "object",
  SubFormRecords: "object",
};

const MESSAGE_FIELDS: Readonly<Record<keyof FeedMessage, FieldKind>> = {
  Id: "number",
  DataFeedHistoryId: "number",
  DatafeedMessageId: "number",
  DatafeedMessage: "string",
  DatafeedMessageParameters: "string",
  Row: "number",
};

/** The feed the body's `Guid` names (compared case-insensitively, as GUIDs are), or 400/404. */
function bodyFeed(ctx: RouteContext): DataFeed {
  const body = ctx.body as { Guid?: unknown } | null | undefined;
  const guid = typeof body === "object" && body !== null ? body.Guid : undefined;
  if (typeof guid !== "string" || guid.trim() === "") {
    throw badRequest(
      "DataFeedGuidRequired",
      'The body must name the data feed: {"Guid": "<data feed GUID>"}, sent as a POST with X-Http-Method-Override: GET.',
    );
  }
  const wanted = guid.trim().toLowerCase();
  const feed = feedsOfSeed(ctx.store.data.seed).feeds.find((f) => f.Guid.toLowerCase() === wanted);
  if (!feed) throw notFound("DataFeed", guid.slice(0, 60));
  return feed;
}

/** The feed's runs, newest first: clients take the first as the latest. */
function runsOf(ctx: RouteContext, feed: DataFeed): FeedRun[] {
  return feedsOfSeed(ctx.store.data.seed)
    .runs.filter((run) => run.DataFeedGuid === feed.Guid)
    .sort((a, b) => b.StartTime.localeCompare(a.StartTime) || b.Id - a.Id);
}

function messagesOf(ctx: RouteContext, runId: number): FeedMessage[] {
  return feedsOfSeed(ctx.store.data.seed).messages.filter((m) => m.DataFeedHistoryId === runId);
}

/** The latest run and its messages; a feed that never ran answers an empty object. */
function recent(ctx: RouteContext) {
  const [latest] = runsOf(ctx, bodyFeed(ctx));
  if (!latest) return ok({});
  return ok({ DataFeedHistory: latest, DataFeedMessages: messagesOf(ctx, latest.Id) });
}

function runMessages(ctx: RouteContext): FeedMessage[] {
  const id = pathId(ctx.params, "historyId");
  const run = feedsOfSeed(ctx.store.data.seed).runs.find((r) => r.Id === id);
  if (!run) throw notFound("DataFeedHistory", id);
  return messagesOf(ctx, id);
}

export function registerDataFeeds(routes: Routes): void {
  const options = { integration: true } as const;
  routes.list("/core/datafeed", (ctx) => feedsOfSeed(ctx.store.data.seed).feeds, FEED_FIELDS, options);
  routes.list("/core/datafeed/history", (ctx) => runsOf(ctx, bodyFeed(ctx)), RUN_FIELDS, options);
  routes.read("/core/datafeed/history/recent", recent, options);
  routes.list("/core/datafeed/historymessage/:historyId", runMessages, MESSAGE_FIELDS, options);
}
