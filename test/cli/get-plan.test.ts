import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { connections } from "../../src/cli/connect.ts";
import { readContext } from "../../src/cli/get-plan.ts";
import {
  environmentOf,
  ManifestError,
  readRepository,
  validateRepository,
} from "../../src/manifest/index.ts";
import { readLiveState } from "../../src/state/index.ts";
import { exampleTree } from "../helpers/cli.ts";
import { type FileTree, testdir } from "../helpers/testdir.ts";

/*
 * The plan starts the packages' reads from the package manifests alone and loads the others while
 * they run (get-plan.ts). What it reads must be what a load of every manifest asks for, whatever
 * the shortcut found: these compare it with reading after a full load, on the example repository's
 * embedded emulators.
 */

const ENV = "local-prod";
const open: Array<ReturnType<typeof connections>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.closeAll()));
});

function logged() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: "debug" }, sink) };
}

/** The plan's reading, and the same live state read the plain way: after a full load, nothing ahead. */
async function bothWays(tree: FileTree) {
  const dir = await testdir(tree);
  const { lines, logger } = logged();
  const planConnections = connections({ logger });
  open.push(planConnections);
  const context = await readContext(dir, ENV, planConnections, logger);
  const aheadUsed = lines.find((line) => "packagesReadAhead" in line)?.packagesReadAhead;

  const { state } = environmentOf(await readRepository(dir), ENV);
  const plain = connections({ logger: pino({ level: "silent" }) });
  open.push(plain);
  const target = await plain.open(state.environment);
  const source = state.packagesFrom ? await plain.open(state.packagesFrom) : undefined;
  const live = await readLiveState(target.client, state, { source: source?.client });
  return { context, live, aheadUsed };
}

describe("the packages' reads started ahead of the full load", () => {
  it("are used when the full load names the same packages, and read what reading after it reads", async () => {
    const { context, live, aheadUsed } = await bothWays(exampleTree({ persist: false }));
    expect(aheadUsed).toBe(true);
    expect(Object.keys(context.live.packages.objects).length).toBeGreaterThan(0);
    expect(context.live.packages).toEqual(live.packages);
    expect(context.live.packageSource).toEqual(live.packageSource);
    expect(context.live.partDigests).toEqual(live.partDigests);
  });

  it("are dropped for a package in a file that does not look like one, whose objects are read too", async () => {
    const tree = exampleTree({ persist: false });
    // Findings moves to a package whose kind is written with an escape: no "kind: Package" in its
    // text, so it is not loaded ahead; the full load has two packages, the early one only one.
    const packages = tree["manifests/packages.yaml"] ?? "";
    tree["manifests/packages.yaml"] = packages.replace("  - application: Findings\n", "");
    tree["manifests/zz-more.yaml"] = [
      'kind: "Packag\\x65"',
      "name: Findings too",
      "objects:",
      "  - application: Findings",
      "",
    ].join("\n");
    const { context, live, aheadUsed } = await bothWays(tree);
    expect(aheadUsed).toBe(false);
    expect(context.desired.packages.map((p) => p.name)).toEqual(["GRC Core", "Findings too"]);
    const findings = context.live.packageSource?.applicationsByName.findings;
    expect(findings).toBeDefined();
    expect(Object.keys(context.live.packageSource?.objects ?? {})).toContain(findings);
    expect(context.live.packages).toEqual(live.packages);
    expect(context.live.packageSource).toEqual(live.packageSource);
  });

  it("leave an invalid repository's errors as they are, every one, and no unhandled rejection", async () => {
    const tree = exampleTree({ persist: false });
    tree["manifests/users.yaml"] =
      `${tree["manifests/users.yaml"]}\n---\nkind: User\nuserName: broken\nfirstName: X\nstatus: gone\n`;
    const dir = await testdir(tree);
    const expected = validateRepository(await readRepository(dir), { env: ENV });
    expect(expected.ok).toBe(false);
    const errors = expected.ok ? [] : expected.errors;
    expect(errors.length).toBeGreaterThanOrEqual(2);

    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", record);
    try {
      const { lines, logger } = logged();
      const planConnections = connections({ logger });
      const reading = readContext(dir, ENV, planConnections, logger);
      await expect(reading).rejects.toThrow(ManifestError);
      await expect(reading).rejects.toMatchObject({ issues: errors });
      // The packages' reads were under way; closing the connections ends them with an error that
      // nobody is left to handle.
      expect(lines.some((line) => line.msg === "reading live state")).toBe(false);
      await planConnections.closeAll();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", record);
    }
  });
});
