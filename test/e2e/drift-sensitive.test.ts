// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generateSigningKey } from "../../src/store/signing.ts";
import { egp, type Run } from "../helpers/cli.ts";
import { SIGNING_ENV } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A drift finding of a field whose desired value comes from ${VAR}: its value hash is a keyed hash
 * of the live value alone, under a key derived from the team's EGP_SIGNING_KEY, so that an
 * acknowledgement written on one machine matches on another, holds while anything else changes,
 * and comes back when the value does. Without the key no hash of the value is shown at all.
 */

const LIVE = "Aurora7";
const WANTED = "Borealis9";
const LATER = "Cassini3";

const manifests = (otherLastName: string) =>
  [
    "kind: User",
    "userName: marked",
    'firstName: "${EGP_MARK}"',
    "lastName: Lee",
    "---",
    "kind: User",
    "userName: other",
    "firstName: Olive",
    `lastName: ${otherLastName}`,
    "",
  ].join("\n");

interface FindingJson {
  fingerprint: string;
  object: string;
  part: string;
  valueHash: string;
  resurfaced?: string;
  acknowledgement?: { note?: string };
}

let repo: string;

const env = (mark: string, keyed = true) => ({
  EGP_MARK: mark,
  EGP_ACTOR: "dana",
  ...(keyed ? SIGNING_ENV : {}),
});

async function apply(mark: string): Promise<void> {
  const run = await egp(["apply", "--env", "prod", "--yes"], { cwd: repo, env: env(mark) });
  expect(run.code, run.stdout + run.stderr).toBe(0);
}

async function drift(vars: Record<string, string>) {
  const run = await egp(["drift", "--env", "prod", "--format", "json"], { cwd: repo, env: vars });
  expect(run.stderr).toBe("");
  const json = JSON.parse(run.stdout);
  const marked = (list: FindingJson[]) => list.find((f) => f.object === "marked" && f.part === "FirstName");
  return { run, open: marked(json.findings), acknowledged: marked(json.acknowledged) };
}

async function statusTotal(vars: Record<string, string>): Promise<number> {
  const run = await egp(["status", "--format", "json", "--env", "prod"], { cwd: repo, env: vars });
  return JSON.parse(run.stdout).environments[0].driftTotal;
}

const all = (...runs: Run[]) => runs.map((run) => run.stdout + run.stderr).join("\n");

/** The signing key's body, line by line: the key the value hashes are made under never shows either. */
const KEY_LINES = SIGNING_ENV.EGP_SIGNING_KEY.split("\n").filter(
  (line) => line.length >= 16 && !line.startsWith("-----"),
);

function expectNoValue(...runs: Run[]): void {
  for (const value of [LIVE, WANTED, LATER, ...KEY_LINES]) expect(all(...runs)).not.toContain(value);
}

beforeAll(async () => {
  repo = await testdir({
    "environments/prod.yaml": "url: embedded:empty?data=.egp/prod.db\n",
    "manifests/users.yaml": manifests("Lee"),
  });
  await apply(LIVE);
}, 60_000);

describe("a drift finding of a value from ${VAR}", { timeout: 60_000 }, () => {
  let fingerprint: string;

  it("has a keyed hash of the live value, never a plain one, and shows no value", async () => {
    const { run, open } = await drift(env(WANTED));
    expect(run.code).toBe(2);
    expect(open?.valueHash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    for (const text of [LIVE, JSON.stringify(LIVE)])
      expect(open?.valueHash).not.toContain(createHash("sha256").update(text).digest("hex"));
    expectNoValue(run);
    const hash = open?.valueHash ?? "";
    // Another team's key gives another hash: the hash is keyed, not a digest anyone can recompute.
    const other = await drift({ ...env(WANTED, false), EGP_SIGNING_KEY: generateSigningKey().privateKey });
    expect(other.open?.fingerprint).toBe(open?.fingerprint);
    expect(other.open?.valueHash).toMatch(/^hmac-sha256:/);
    expect(other.open?.valueHash).not.toBe(hash);
  });

  it("stays acknowledged while other objects change, and comes back when the value changes", async () => {
    const first = await drift(env(WANTED));
    fingerprint = first.open?.fingerprint ?? "";
    const hash = first.open?.valueHash ?? "";
    const until = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const ack = await egp(
      ["drift", "ack", fingerprint, "--env", "prod", "--reason", "known", "--until", until],
      { cwd: repo, env: env(WANTED) },
    );
    expect(ack.code, ack.stderr).toBe(0);
    expectNoValue(ack);
    expect(await readFile(join(repo, `drift-acks/prod-${fingerprint}.yaml`), "utf8")).toContain(hash);

    await writeFile(join(repo, "manifests/users.yaml"), manifests("Kim"));
    await apply(LIVE);
    const unrelated = await drift(env(WANTED));
    expect(unrelated.open).toBeUndefined();
    expect(unrelated.acknowledged?.fingerprint).toBe(fingerprint);
    expect(unrelated.run.code).toBe(0);
    expect(await statusTotal(env(WANTED))).toBe(0);

    await apply(LATER);
    const changed = await drift(env(WANTED));
    expect(changed.open).toMatchObject({ fingerprint, resurfaced: "acknowledged value changed" });
    expect(changed.run.code).toBe(2);
    // status matches acknowledgements under the same key, and counts what drift lists.
    expect(await statusTotal(env(WANTED))).toBe(1);
    expectNoValue(changed.run);
  });

  it("without EGP_SIGNING_KEY hashes nothing of the value, and acknowledgements match on the fingerprint alone", async () => {
    const { run, open, acknowledged } = await drift(env(WANTED, false));
    expect(open).toBeUndefined();
    expect(acknowledged).toMatchObject({
      fingerprint,
      valueHash: "sealed:unavailable",
      acknowledgement: { note: expect.stringMatching(/EGP_SIGNING_KEY/) },
    });
    expect(run.code).toBe(0);
    expectNoValue(run);
    const text = await egp(["drift", "--env", "prod"], { cwd: repo, env: env(WANTED, false) });
    expect(text.stdout).toMatch(/value not compared/);
  });
});
