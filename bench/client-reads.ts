import { Agent, request } from "undici";
import { createClient } from "../src/client/client.ts";
import { spawnEmulator } from "./lib/emulator-child.ts";
import { rawLogin } from "./lib/package-zip.ts";

/*
 * Main-thread CPU of the client per read, against bare undici doing the same reads (issue 19):
 * - the tree reads of a plan (fields, layout, rules, actions of every level of 200 applications);
 * - the users list (10,000 loose users) and the contacts list (10,000 entries).
 * Both sides run in this process, one after the other, several rounds; the figures are the medians
 * of process CPU ms (user + system) per sweep. An emulator child serves the reads.
 *
 *   bash scripts/node24 node bench/client-reads.ts [rounds] [--only NAME]
 *     [--url http://127.0.0.1:PORT --password P]   (an emulator already seeded with scale:users=10000,apps=200)
 */

// The emulator's default admin password; an emulator given with --url is the scale setup's.
let PASSWORD = "Password1!";
const CONCURRENCY = 8;
const args = process.argv.slice(2);
const ROUNDS = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 7);
const given = args.includes("--url") ? args[args.indexOf("--url") + 1] : undefined;
// `--only egpTrees` (or another figure's name): runs that one alone, for a profile.
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
if (args.includes("--password")) PASSWORD = args[args.indexOf("--password") + 1] ?? PASSWORD;

type Row = Record<string, unknown>;

async function main(): Promise<void> {
  const emulator = given
    ? undefined
    : await spawnEmulator({ seed: "scale:users=10000,apps=200,parameters=100", dist: false });
  const url = given ?? (emulator?.url as string);
  try {
    const client = createClient({
      url,
      instance: "Default",
      username: "sysadmin",
      password: PASSWORD,
      scheme: "Platform",
      limits: { concurrency: CONCURRENCY, requestsPerSecond: 0 },
      onWait: () => undefined,
    });
    const token = await rawLogin(url, PASSWORD);
    const egp = await treesOf(client);
    const figures: Record<string, number[]> = { egpTrees: [], bareTrees: [], egpUsers: [], bareUsers: [] };
    const runs: Record<string, () => Promise<unknown>> = {
      egpTrees: () => egpTrees(client, egp),
      bareTrees: () => bareTrees(url, token, egp),
      egpUsers: () => Promise.all([client.users.list(), client.users.listContacts()]),
      bareUsers: () =>
        Promise.all([
          bare(url, token, "/core/system/user"),
          bare(url, token, "/core/system/usercontact", "GET"),
        ]),
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(runs)) {
        if (only === undefined || only === name) figures[name]?.push(await cpu(run));
      }
    }
    const requests = egp.reads;
    for (const [name, values] of Object.entries(figures)) {
      const ms = median(values);
      const per = name.endsWith("Trees") ? `, ${((ms * 1000) / requests).toFixed(0)} µs per read` : "";
      console.log(
        `${name.padEnd(10)} cpu ms median ${ms.toFixed(1)} (${values.map((v) => v.toFixed(0)).join(" ")})${per}`,
      );
    }
    console.log(`tree reads per sweep: ${requests}`);
    console.log(
      `egp - bare per tree read, µs: ${(((median(figures.egpTrees ?? []) - median(figures.bareTrees ?? [])) * 1000) / requests).toFixed(0)}`,
    );
    await client.close();
  } finally {
    await emulator?.stop();
  }
}

interface Plan {
  levels: number[];
  rules: Map<number, number[]>;
  reads: number;
}

async function treesOf(client: ReturnType<typeof createClient>): Promise<Plan> {
  const levels = (await client.metadata.levels()).map((level) => level.Id as number);
  const rules = new Map<number, number[]>();
  let reads = 0;
  for (const level of levels) {
    const found = await client.metadata.eventRulesByLevel(level);
    rules.set(
      level,
      found.map((rule) => rule.Id as number),
    );
    reads += 3 + found.length;
  }
  return { levels, rules, reads };
}

async function egpTrees(client: ReturnType<typeof createClient>, plan: Plan): Promise<unknown> {
  return Promise.all(
    plan.levels.map(async (level) => {
      await Promise.all([
        client.metadata.fieldDefinitions(level),
        client.metadata.levelLayout(level).catch(() => undefined),
        client.metadata.eventRulesByLevel(level),
      ]);
      await Promise.all(
        (plan.rules.get(level) ?? []).map((rule) => client.metadata.eventActionsByRule(rule)),
      );
    }),
  );
}

const dispatcher = new Agent({ connections: CONCURRENCY, pipelining: 1 });
let inFlight = 0;
const queue: Array<() => void> = [];

async function bare(url: string, token: string, path: string, method = "POST"): Promise<unknown> {
  if (inFlight >= CONCURRENCY) await new Promise<void>((resolve) => queue.push(resolve));
  inFlight += 1;
  try {
    const headers: Record<string, string> = {
      accept: "application/json",
      "content-type": "application/json",
    };
    if (token) headers.authorization = `Platform session-id="${token}"`;
    if (method === "POST") headers["x-http-method-override"] = "GET";
    const response = await request(`${url}/platformapi${path}`, {
      method: method as "POST",
      headers,
      dispatcher,
    });
    const body = (await response.body.json()) as unknown;
    return Array.isArray(body) ? body.map((e: Row) => e.RequestedObject) : (body as Row).RequestedObject;
  } finally {
    inFlight -= 1;
    queue.shift()?.();
  }
}

async function bareTrees(url: string, token: string, plan: Plan): Promise<unknown> {
  return Promise.all(
    plan.levels.map(async (level) => {
      await Promise.all([
        bare(url, token, `/core/system/fielddefinition/level/${level}`),
        bare(url, token, `/core/system/levellayout/level/${level}`),
        bare(url, token, `/core/system/eventrule/level/${level}`),
      ]);
      await Promise.all(
        (plan.rules.get(level) ?? []).map((rule) =>
          bare(url, token, `/core/system/eventaction/eventrule/${rule}`),
        ),
      );
    }),
  );
}

async function cpu(run: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? 0;
}

await main();
await dispatcher.close();
