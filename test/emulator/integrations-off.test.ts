import { describe, expect, it } from "vitest";
import { feedsOfSeed } from "../../src/emulator/seeds/demo-datafeeds.ts";
import { type Raw, useEmulator } from "../helpers/raw.ts";

/*
 * Each surface beyond the interface description answers 404 with integrations off
 * (`--no-integrations`), under every prefix, and answers with them on: the same requests, so that
 * a 404 means the switch, not a wrong path (docs/emulator.md, "Turning them off").
 */

interface Call {
  path: string;
  prefix: string;
  body?: unknown;
}

const BOTH = ["/platformapi", "/api"];
const FEED = feedsOfSeed("demo-dev").feeds[0]?.Guid;

/** Requests per surface, each answered (not 404) with integrations on. */
const SURFACES: Record<string, Call[]> = {
  "role and membership reads": BOTH.flatMap((prefix) =>
    ["/core/system/role", "/core/system/role/1", "/core/system/role/user/1", "/core/system/group/user/1"].map(
      (path) => ({ path, prefix }),
    ),
  ),
  "Content API entity sets by application alias, and $count": [
    "/contentapi/",
    "/contentapi/Risk_Register",
    "/contentapi/Risk_Register(1002)",
    "/contentapi/Findings",
    "/contentapi/Risk?$count=true",
    "/contentapi/Risk_Register?$count=true&$top=1",
  ].map((path) => ({ path, prefix: "" })),
  "data feed reads": BOTH.flatMap((prefix) => [
    { path: "/core/datafeed", prefix },
    { path: "/core/datafeed/historymessage/101", prefix },
    { path: "/core/datafeed/history", prefix, body: { Guid: FEED } },
    { path: "/core/datafeed/history/recent", prefix, body: { Guid: FEED } },
  ]),
};

/** Reads as clients send them: a plain GET, or a POST with the GET override for a body. */
async function statusOf(raw: Raw, token: string, { path, prefix, body }: Call): Promise<number> {
  const options =
    body === undefined ? { token, prefix } : { token, prefix, body, method: "POST", override: true };
  return (await raw.call(path, options)).status;
}

describe("with integrations on", () => {
  const { raw } = useEmulator({ seed: "demo-dev" });

  it.each(Object.entries(SURFACES))("%s answer", async (_surface, calls) => {
    const token = await raw().token();
    for (const call of calls) {
      expect(await statusOf(raw(), token, call), `${call.prefix}${call.path}`).toBe(200);
    }
  });
});

describe("with integrations off", () => {
  const { raw } = useEmulator({ seed: "demo-dev", integrations: false });

  it.each(Object.entries(SURFACES))("%s answer 404", async (_surface, calls) => {
    const token = await raw().token();
    for (const call of calls) {
      expect(await statusOf(raw(), token, call), `${call.prefix}${call.path}`).toBe(404);
    }
  });

  it("the interface description's reads still answer", async () => {
    const token = await raw().token();
    expect((await raw().read("/core/system/user", token)).status).toBe(200);
    expect((await raw().read("/core/system/group", token)).status).toBe(200);
  });
});
