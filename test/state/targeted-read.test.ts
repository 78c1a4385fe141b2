import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { startEarlyReads } from "../../src/state/index.ts";
import type { User } from "../../src/wire/index.ts";
import { forwardingProxy } from "../helpers/forwarding-proxy.ts";

/*
 * `--target User/<name>` reads only the users it names where the interface allows it: one list read
 * with an OData `UserName eq` filter, instead of every user of the instance, so that a targeted plan
 * costs what it targets.
 */

let emulator: Emulator;
let client: PlatformClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, seed: "demo-prod" });
  client = createClient({
    url: emulator.url,
    instance: "Default",
    username: "sysadmin",
    password: "Password1!",
    limits: { concurrency: 2, requestsPerSecond: 0 },
  });
});

afterAll(async () => {
  await client.close();
  await emulator.close();
});

const names = (users: Array<{ UserName: string }>) => users.map((u) => u.UserName).sort();

describe("a targeted plan's user read", () => {
  it("asks the instance for the named users only, matching names case-insensitively", async () => {
    const usersOf = (early: ReturnType<typeof startEarlyReads>) => early.get("users") as Promise<User[]>;
    const all = names(await usersOf(startEarlyReads(client)));
    expect(all.length).toBeGreaterThan(3);
    const before = client.stats().byRoute;
    const named = await usersOf(
      startEarlyReads(client, (kind) => (kind === "User" ? ["DPATEL", "nobody", "O'Brien"] : undefined)),
    );
    expect(names(named)).toEqual(["dpatel"]);
    const after = client.stats().byRoute;
    const reads = Object.keys(after).filter((route) => route.endsWith("/core/system/user"));
    expect(reads.map((route) => (after[route] ?? 0) - (before[route] ?? 0))).toEqual([1]);
  });

  it("reads no user at all when the targets name none", async () => {
    const before = client.stats().requests;
    const early = startEarlyReads(client, () => []);
    expect(await early.get("users")).toEqual([]);
    await early.get("securityParameters");
    // The parameters' list read only.
    expect(client.stats().requests - before).toBe(1);
  });
});

/** An instance in front of the emulator that drops `$filter`, as an instance ignoring it would. */
const filterIgnoringProxy = (target: string) =>
  forwardingProxy(target, (url) => {
    url.searchParams.delete("$filter");
    return false;
  });

describe("a targeted plan's user read from an instance that ignores the filter", () => {
  it("keeps only the users it named", async () => {
    const proxy = await filterIgnoringProxy(emulator.url);
    const ignoring = createClient({
      url: proxy.url,
      instance: "Default",
      username: "sysadmin",
      password: "Password1!",
      limits: { concurrency: 2, requestsPerSecond: 0 },
    });
    try {
      const everyone = (await ignoring.users.list({
        filter: { field: "UserName", op: "eq", value: "dpatel" },
      })) as User[];
      expect(everyone.length).toBeGreaterThan(1);
      const early = startEarlyReads(ignoring, (kind) => (kind === "User" ? ["DPATEL", "nobody"] : undefined));
      expect(names((await early.get("users")) as User[])).toEqual(["dpatel"]);
    } finally {
      await ignoring.close();
      await new Promise((resolve) => proxy.server.close(resolve));
    }
  });
});
