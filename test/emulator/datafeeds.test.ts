import { describe, expect, it } from "vitest";
import { type Json, type Raw, useEmulator } from "../helpers/raw.ts";

/*
 * Data feed reads in the shapes public clients send and read them (docs/emulator.md, "Data
 * feeds"), over real HTTP: an MCP server lists feeds and reads a feed's runs and a run's messages
 * under `/api/core/`, a browser client reads a feed's latest run under `/platformapi/core/`.
 */

const requested = (response: { body: Json }) => (response.body as Json[]).map((e) => e.RequestedObject);

/** The feeds as the MCP server keeps them: active ones only, by the fields it reads. */
async function activeFeeds(raw: Raw, token: string) {
  const response = await raw.call("/core/datafeed", { token, prefix: "/api" });
  expect(response.status, response.text).toBe(200);
  return requested(response)
    .filter((feed: Json) => feed.Active === true)
    .map((feed: Json) => ({
      guid: feed.Guid,
      name: feed.Name,
      description: feed.Description,
      lastRun: feed.LastRun,
      nextRun: feed.NextRun,
    }));
}

/** The first active feed, which has run more than once. */
async function firstActive(raw: Raw, token: string) {
  const [feed] = await activeFeeds(raw, token);
  if (!feed) throw new Error("no active data feed");
  return feed;
}

/** The history call as both clients send it: POST, the GUID in the body, the GET override. */
const history = (raw: Raw, token: string, path: string, guid: unknown, prefix = "/api") =>
  raw.call(path, { method: "POST", token, prefix, override: true, body: { Guid: guid } });

describe("data feeds (demo-dev)", () => {
  const { raw } = useEmulator({ seed: "demo-dev" });

  it("lists the seed's feeds, with the fields a monitoring client reads", async () => {
    const token = await raw().token();
    const all = requested(await raw().call("/core/datafeed", { token }));
    const active = await activeFeeds(raw(), token);
    expect(active.length).toBeGreaterThan(0);
    expect(active.length).toBeLessThan(all.length);
    for (const feed of active) {
      expect(feed.guid).toMatch(/^[0-9a-f-]{36}$/);
      expect(feed.name).toEqual(expect.any(String));
      expect(feed.lastRun).toEqual(expect.any(String));
    }
    const named = await raw().call(`/core/datafeed?$filter=${encodeURIComponent("Active eq false")}`, {
      token,
    });
    expect(requested(named).map((f: Json) => f.Active)).toEqual([false]);
  });

  it("answers a feed's runs, newest first, under both prefixes", async () => {
    const token = await raw().token();
    const feed = await firstActive(raw(), token);
    for (const prefix of ["/api", "/platformapi"]) {
      const response = await history(raw(), token, "/core/datafeed/history", feed.guid, prefix);
      expect(response.status, response.text).toBe(200);
      const runs = requested(response);
      expect(runs.length).toBeGreaterThan(1);
      const starts = runs.map((r: Json) => r.StartTime);
      expect(starts).toEqual([...starts].sort().reverse());
      // A client takes the first run as the latest one, which the feed names as its last run.
      expect(runs[0].StartTime).toBe(feed.lastRun);
      expect(runs[0].TargetRecords).toEqual({
        Created: expect.any(Number),
        Updated: expect.any(Number),
        Deleted: expect.any(Number),
        Failed: expect.any(Number),
      });
    }
  });

  it("answers a feed's latest run and its messages, as a browser client reads them", async () => {
    const token = await raw().token();
    const feed = await firstActive(raw(), token);
    const response = await history(raw(), token, "/core/datafeed/history/recent", feed.guid, "/platformapi");
    expect(response.status, response.text).toBe(200);
    expect(response.body.IsSuccessful).toBe(true);
    const dfh = response.body.RequestedObject.DataFeedHistory;
    const runs = requested(await history(raw(), token, "/core/datafeed/history", feed.guid));
    expect(dfh).toEqual(runs[0]);
    expect(dfh.Status).toBeGreaterThanOrEqual(1);
    expect(dfh.Status).toBeLessThanOrEqual(7);
    expect(typeof dfh.SourceRecordsProcessed).toBe("number");
    const messages = response.body.RequestedObject.DataFeedMessages as Json[];
    const byId = requested(
      await raw().call(`/core/datafeed/historymessage/${dfh.Id}`, { token, prefix: "/api" }),
    );
    expect(messages).toEqual(byId);
  });

  it("answers a run's messages by history id, and an empty list for a run without any", async () => {
    const token = await raw().token();
    const feeds = await activeFeeds(raw(), token);
    const runs = (
      await Promise.all(
        feeds.map(async (f) => requested(await history(raw(), token, "/core/datafeed/history", f.guid))),
      )
    ).flat();
    const counts = await Promise.all(
      runs.map(async (run: Json) => {
        const response = await raw().call(`/core/datafeed/historymessage/${run.Id}`, {
          token,
          prefix: "/api",
        });
        expect(response.status, response.text).toBe(200);
        const messages = requested(response);
        for (const m of messages) expect(m.DataFeedHistoryId).toBe(run.Id);
        return messages.length;
      }),
    );
    expect(counts.some((n) => n > 0)).toBe(true);
    expect(counts.some((n) => n === 0)).toBe(true);
    const read = await raw().read(`/core/datafeed/historymessage/${runs[0].Id}`, token);
    expect(read.status).toBe(200);
  });

  it("answers an empty object for the latest run of a feed that never ran", async () => {
    const token = await raw().token();
    const idle = requested(await raw().call("/core/datafeed", { token })).find(
      (f: Json) => f.LastRun === null,
    );
    const response = await history(raw(), token, "/core/datafeed/history/recent", idle.Guid);
    expect(response.status, response.text).toBe(200);
    expect(response.body.RequestedObject).toEqual({});
    expect(requested(await history(raw(), token, "/core/datafeed/history", idle.Guid))).toEqual([]);
  });

  it("refuses a missing or unknown GUID and an unknown history id", async () => {
    const token = await raw().token();
    const unknown = await history(
      raw(),
      token,
      "/core/datafeed/history",
      "00000000-0000-0000-0000-000000000000",
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.ValidationMessages[0].MessageKey).toBe("DataFeedNotFound");
    const missing = await raw().call("/core/datafeed/history/recent", { token });
    expect(missing.status).toBe(400);
    expect(missing.body.ValidationMessages[0].MessageKey).toBe("DataFeedGuidRequired");
    const noRun = await raw().call("/core/datafeed/historymessage/999999", { token });
    expect(noRun.status).toBe(404);
    expect(noRun.body.ValidationMessages[0].MessageKey).toBe("DataFeedHistoryNotFound");
    expect((await raw().call("/core/datafeed/historymessage/x", { token })).status).toBe(400);
  });

  it("answers the XML form when asked", async () => {
    const token = await raw().token();
    const response = await raw().call("/core/datafeed", { token, headers: { accept: "application/xml" } });
    expect(response.status).toBe(200);
    expect(response.text).toContain("<ArrayOfResponseEnvelope");
  });
});

describe("data feeds (empty seed)", () => {
  const { raw } = useEmulator({ seed: "empty" });

  it("lists none", async () => {
    const token = await raw().token();
    const response = await raw().call("/core/datafeed", { token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });
});
