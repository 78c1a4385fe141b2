import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { request } from "undici";
import type { Caller } from "../src/client/caller.ts";
import type { PlatformClient } from "../src/client/client.ts";
import { createClient } from "../src/client/client.ts";
import type { DecodeContext, Decoder } from "../src/client/envelope.ts";
import { usersResource } from "../src/client/resources/users.ts";
import { startEmulator } from "../src/emulator/index.ts";
import { exportManifests } from "../src/export/index.ts";
import { loadEnvironment } from "../src/manifest/index.ts";
import { BUILT_IN_PLANNERS } from "../src/plan/index.ts";
import type { PlanInput, PlannedState } from "../src/plan/kinds/kind.ts";
import { userPlanner } from "../src/plan/kinds/user.ts";
import { userLive } from "../src/state/kinds/user.ts";
import type { LiveState } from "../src/state/live-state.ts";
import { readLiveState } from "../src/state/read-live.ts";
import { launcherFlags } from "./lib/emulator-child.ts";
import { rawLogin } from "./lib/package-zip.ts";
import { machine } from "./lib/proc.ts";
import { BENCH_PASSWORD_VARIABLE, writeRepo } from "./lib/repo.ts";

/*
 * The CPU of a plan's work on live users, piece by piece, in one process with no HTTP in the timed
 * part: an emulator on the scale seed (127.0.0.1, port 0) is read once, then each piece runs on
 * what was read:
 * - decode: the client's checks of the read answers (users list, contacts list, the members of the
 *   two mapped groups), from the parsed JSON bodies to what the client returns; the JSON parse
 *   itself is not counted (a bare script does it too);
 * - read: the users part of the live state from the same answers (state/kinds/user.ts): the
 *   decodes above, then users, contacts and group members joined;
 * - digest: the users part's digest (state/kinds/user.ts);
 * - plan: the user planner's refusals and plan, with every user managed as `egp export` writes
 *   them (no changes: every user compared field by field).
 * Setup runs in this process; the pieces run in a child of their own with the launcher's Node flags
 * (bin/egp.js), ITERATIONS times each in turn. The first run is printed apart (a CLI run is a cold
 * JIT), then the best and the median of all of them, and the one-minute load before and after.
 *
 *   bash scripts/node24 node bench/live-users.ts [users] [--iterations N] [--only decode|read|digest|plan]
 */

const args = process.argv.slice(2);
const flagValue = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const USERS = Number(args.find((arg, i) => /^\d+$/.test(arg) && !args[i - 1]?.startsWith("--")) ?? 10_000);
const ITERATIONS = Number(flagValue("--iterations") ?? 15);
// `--only plan` (or decode, digest): that piece alone, for a profile (EGP_BENCH_NODE_FLAGS="--cpu-prof").
const ONLY = flagValue("--only");
const PASSWORD = "Password1!";

interface Answers {
  users: unknown;
  contacts: unknown;
  groups: Map<number, unknown>;
}

/** The parsed JSON bodies of the reads, as the client's transport hands them to the decoders. */
async function answersOf(url: string, groupIds: readonly number[]): Promise<Answers> {
  const token = await rawLogin(url, PASSWORD);
  const read = async (path: string, method: "GET" | "POST") => {
    const headers: Record<string, string> = {
      accept: "application/json",
      authorization: `Platform session-id="${token}"`,
    };
    if (method === "POST") headers["x-http-method-override"] = "GET";
    const response = await request(`${url}/platformapi${path}`, { method, headers });
    return response.body.json();
  };
  const groups = new Map<number, unknown>();
  for (const id of groupIds) groups.set(id, await read(`/core/system/user/group/${id}`, "POST"));
  return {
    users: await read("/core/system/user", "POST"),
    contacts: await read("/core/system/usercontact", "GET"),
    groups,
  };
}

/** The users resource over a caller that decodes a stored answer instead of making a request. */
function decodingResource(answers: Answers) {
  const context: DecodeContext = { method: "POST", path: "/", status: 200, scrub: (text) => text };
  const caller = {
    async call(call: { route: { path: string }; decode: Decoder<unknown> }) {
      const path = call.route.path;
      const group = /\/group\/(\d+)$/.exec(path);
      const payload = group
        ? answers.groups.get(Number(group[1]))
        : path.endsWith("usercontact")
          ? answers.contacts
          : answers.users;
      return call.decode(payload, context);
    },
  };
  return usersResource(caller as unknown as Caller, { add: () => undefined } as never);
}

function timed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

async function timedAsync(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

function report(name: string, ms: readonly number[]): void {
  const best = Math.min(...ms);
  console.log(
    `${name.padEnd(8)} first ${ms[0]?.toFixed(1).padStart(6)} ms   best ${best.toFixed(1).padStart(6)} ms   median ${median(ms).toFixed(1).padStart(6)} ms`,
  );
}

/** Setup, in this process: the repository as `egp export` writes it, the live state and the answers. */
async function setup(work: string): Promise<void> {
  const emulator = await startEmulator({ seed: `scale:users=${USERS},parameters=100`, port: 0 });
  try {
    writeRepo(work, { environments: { scale: { url: emulator.url, concurrency: 8 } } });
    const client = createClient({
      url: emulator.url,
      instance: "Default",
      username: "sysadmin",
      password: PASSWORD,
      scheme: "Platform",
      limits: { concurrency: 8, requestsPerSecond: 0 },
      onWait: () => undefined,
    });
    const empty = (await loadEnvironment(work, "scale", { variables })).state;
    const all = await readLiveState(client, { ...empty, packages: [] }, { scope: "all" });
    mkdirSync(join(work, "manifests", "live"), { recursive: true });
    for (const file of exportManifests({ environment: empty.environment, live: all }).files)
      writeFileSync(join(work, "manifests", "live", file.file), file.text);
    const desired = (await loadEnvironment(work, "scale", { variables })).state;
    const live = await readLiveState(client, desired);
    await client.close();
    const answers = await answersOf(emulator.url, live.groupsRead);
    writeFileSync(join(work, "live.v8"), serialize({ live, answers }));
  } finally {
    await emulator.close();
  }
}

/**
 * The measure, in a fresh process, so that its first iteration meets a cold JIT as a CLI run does:
 * the desired state is loaded from the repository (manifest code only), the live state and the
 * answers come from setup's file.
 */
async function measure(work: string): Promise<void> {
  const desired = (await loadEnvironment(work, "scale", { variables })).state;
  const { live, answers } = deserialize(readFileSync(join(work, "live.v8"))) as {
    live: LiveState;
    answers: Answers;
  };
  const planned: PlannedState = {};
  for (const planner of BUILT_IN_PLANNERS) Object.assign(planned, planner.leaves?.({ desired, live }));
  const input: PlanInput = { desired, live, options: {}, planned };
  const resource = decodingResource(answers);
  const decode = () =>
    Promise.all([
      resource.list(),
      resource.listContacts(),
      ...live.groupsRead.map((id) => resource.memberIds(id)),
    ]);

  const figures = {
    decode: [] as number[],
    read: [] as number[],
    digest: [] as number[],
    plan: [] as number[],
  };
  let changes = 0;
  // The users part as a plan reads it (state/kinds/user.ts): the same decodes, then the join of
  // users, contacts and group members.
  const client = { users: resource } as unknown as PlatformClient;
  const context = { client, desired, options: {}, early: new Map(), all: false };
  const runs = {
    decode: () => timedAsync(decode),
    read: () => timedAsync(() => userLive.read(context)),
    digest: async () => timed(() => userLive.digest(live)),
    plan: async () =>
      timed(() => {
        const refused = userPlanner.refusals?.(input) ?? [];
        changes = userPlanner.plan(input).changes.length + refused.length;
      }),
  };
  for (let i = 0; i < ITERATIONS; i++) {
    for (const [name, run] of Object.entries(runs)) {
      if (ONLY === undefined || ONLY === name) figures[name as keyof typeof runs].push(await run());
    }
  }
  console.log(
    `live-users: ${live.users.length} live users, ${desired.users.length} desired (every one managed), groups read ${JSON.stringify(live.groupsRead)}, ${ITERATIONS} iterations; the plan has ${changes} user changes or refusals`,
  );
  for (const [name, ms] of Object.entries(figures)) if (ms.length > 0) report(name, ms);
}

const variables = { [BENCH_PASSWORD_VARIABLE]: PASSWORD };

if (args[0] === "--measure") {
  await measure(args[1] as string);
} else {
  console.log(machine());
  const work = mkdtempSync(join(tmpdir(), "egp-bench-live-users-"));
  try {
    await setup(work);
    const child = spawnSync(
      process.execPath,
      [
        ...launcherFlags(),
        import.meta.filename,
        "--measure",
        work,
        "--iterations",
        String(ITERATIONS),
        ...(ONLY ? ["--only", ONLY] : []),
        String(USERS),
      ],
      { stdio: "inherit" },
    );
    if (child.status !== 0) process.exitCode = 1;
    console.log(`load after: ${machine().split("load ")[1]}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
