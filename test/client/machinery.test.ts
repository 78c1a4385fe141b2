import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/index.ts";
import { type SafeParse, zodParse } from "../../src/schema/validate.ts";
import { optionsFor, useClientEmulator } from "./helpers/client.ts";

/*
 * The client's speed machinery passed in as values (the benchmarks measure each piece against its
 * plain variant): zod's plain parse gives the same answers.
 */

const work = mkdtempSync(join(tmpdir(), "egp-client-machinery-"));
const clients: PlatformClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  rmSync(work, { recursive: true, force: true });
});

describe("the client's plain variants", () => {
  const dev = useClientEmulator({ seed: "demo-dev", jobs: { generateMs: 30 } });
  const withMachinery = (machinery: Parameters<typeof createClient>[1]) => {
    const client = createClient(optionsFor(dev.emulator().url), machinery);
    clients.push(client);
    return client;
  };

  it("answers are checked by the function given, and are the same as the shortcut's", async () => {
    let calls = 0;
    const counting: SafeParse = (schema, value) => {
      calls += 1;
      return zodParse(schema, value);
    };
    const plain = await withMachinery({ validate: counting }).users.list();
    expect(calls).toBeGreaterThanOrEqual(plain.length);
    expect(plain.length).toBeGreaterThan(0);
    // Each client's login moves its own user's LastLoginDate: the rest is compared.
    const steady = (users: typeof plain) => users.map(({ LastLoginDate: _, ...rest }) => rest);
    expect(steady(plain)).toEqual(steady(await dev.client().users.list()));
  });
});
