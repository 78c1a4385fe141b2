import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { egp, exampleTree } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The audit chain is anchored: removing its last records, all of them, or putting back an older head
 * is caught by `egp audit` (exit 1, one line naming what is missing) and by every change that would
 * append to it, which refuses before writing anything. A rollback goes ahead and says so; a signed
 * acknowledge-break lets changes go on, the break still listed.
 */

const ENV = { EGP_ACTOR: "alice" };
const records = (dir: string) => join(dir, ".egp/store/records");
const auditFile = (dir: string, n: number) =>
  join(records(dir), "audit", `${String(n).padStart(12, "0")}.json`);
const SLOW = 180_000;
const run = (dir: string, args: string[]) => egp([...args, "--dir", dir], { env: ENV });

/** Every file of the store and of the embedded instances, by path, as sha256: what a refusal must not change. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true }).catch(() => [])) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else
        files[relative(dir, path)] = createHash("sha256")
          .update(await readFile(path))
          .digest("hex");
    }
  };
  await walk(join(dir, ".egp/store"));
  for (const name of ["local-dev.json", "local-prod.json"]) {
    const path = join(dir, ".egp", name);
    if (existsSync(path))
      files[name] = createHash("sha256")
        .update(await readFile(path))
        .digest("hex");
  }
  for (const name of await readdir(join(dir, "releases")).catch(() => [])) files[`releases/${name}`] = "";
  return files;
}

/*
 * The four records are made once per file and copied into each test's own repository: every test
 * breaks its copy, none reads another's. What this machine has seen of a store is kept per store
 * location, so each copy's own `egp audit` records it for the copy's store.
 */
let template: string | undefined;
beforeAll(async () => {
  const dir = await testdir(exampleTree());
  expect((await run(dir, ["apply", "--env", "local-dev", "--yes"])).code).toBe(0);
  expect((await run(dir, ["release", "create", "--from", "local-dev", "--name", "r1"])).code).toBe(0);
  expect((await run(dir, ["release", "create", "--from", "local-dev", "--name", "r2"])).code).toBe(0);
  template = dir;
}, SLOW);

/** A repository whose chain has four records (apply local-dev started and done, release r1, release r2); local-prod untouched. */
async function chained(): Promise<string> {
  if (!template) throw new Error("the chained repository was not made");
  const dir = await testdir({});
  await cp(template, dir, { recursive: true });
  const audit = await run(dir, ["audit"]);
  expect(audit.code).toBe(0);
  expect(audit.stdout).toMatch(/^#4 \S+ alice release-create local-dev: recorded$/m);
  return dir;
}

/** `egp audit` exits 1 with one line naming the break; apply, release create and reject refuse, writing nothing. */
async function expectBroken(dir: string, line: string): Promise<void> {
  const audit = await run(dir, ["audit"]);
  expect(audit.code).toBe(1);
  expect(audit.stderr).toBe(`egp: EGP_AUDIT_BROKEN the audit chain is broken at ${line}\n`);
  const before = await snapshot(dir);
  for (const command of [
    ["apply", "--env", "local-prod", "--yes"],
    ["release", "create", "--from", "local-dev", "--name", "r3"],
    ["release", "reject", "r1", "--reason", "breaks sign-on"],
  ]) {
    const refused = await run(dir, command);
    expect(refused.code, command.join(" ")).toBe(1);
    expect(refused.stderr).toContain(`egp: EGP_AUDIT_BROKEN the audit chain is broken at ${line}`);
    expect(refused.stderr).toContain("egp writes nothing on a broken chain");
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
  }
  expect(await snapshot(dir)).toEqual(before);
}

describe("an anchored audit chain", () => {
  it(
    "catches the last record removed, and an append after it does not take its number",
    async () => {
      const dir = await chained();
      await rm(auditFile(dir, 4));
      await expectBroken(dir, "audit/000000000004: it is missing (the head, audit-head, names record 4)");

      const acknowledged = await run(dir, [
        "audit",
        "acknowledge-break",
        "--reason",
        "restored from backup: lost",
      ]);
      expect(acknowledged.code).toBe(0);
      expect(acknowledged.stdout).toContain("Acknowledged 1 break in audit record #5:");
      const applied = await run(dir, ["apply", "--env", "local-prod", "--yes"]);
      expect(applied.code).toBe(0);
      const audit = await run(dir, ["audit"]);
      expect(audit.code).toBe(0);
      expect(audit.stdout).toMatch(/^#5 \S+ alice acknowledge-break: recorded$/m);
      expect(audit.stdout).toContain("reason: restored from backup: lost");
      expect(audit.stdout).toMatch(/^#7 \S+ alice apply local-prod: verified$/m);
      expect(audit.stdout).toContain("Acknowledged break (#5): broken at audit/000000000004: it is missing.");
      expect(audit.stdout).toContain("The chain holds past 1 acknowledged break");
    },
    SLOW,
  );

  it(
    "catches the last two records removed",
    async () => {
      const dir = await chained();
      await rm(auditFile(dir, 4));
      await rm(auditFile(dir, 3));
      await expectBroken(
        dir,
        "audit/000000000003: it and the records after it up to audit/000000000004 are missing (the head, audit-head, names record 4)",
      );
    },
    SLOW,
  );

  it(
    "catches the whole audit folder removed, and with it the head",
    async () => {
      const dir = await chained();
      await rm(join(records(dir), "audit"), { recursive: true });
      await expectBroken(
        dir,
        "audit/000000000001: it and the records after it up to audit/000000000004 are missing (the head, audit-head, names record 4)",
      );
      await rm(join(records(dir), "audit-head.json"));
      await expectBroken(
        dir,
        "audit/000000000001: it and the records after it up to audit/000000000004 are missing (this machine has seen record 4 of this store)",
      );
      // On a machine that never saw the chain, the records that name their audit record still tell.
      await rm(join(dir, ".egp/audit-seen"), { recursive: true });
      const audit = await run(dir, ["audit"]);
      expect(audit.code).toBe(1);
      expect(audit.stderr).toMatch(
        /^egp: EGP_AUDIT_BROKEN the audit chain is broken at audit\/000000000001: it and the records after it up to audit\/000000000003 are missing \(releases\/r2 names record 4\)\n$/,
      );
    },
    SLOW,
  );

  it(
    "catches a record removed and a later one moved into its place (renumbering)",
    async () => {
      const dir = await chained();
      await rm(auditFile(dir, 3));
      await rename(auditFile(dir, 4), auditFile(dir, 3));
      await expectBroken(
        dir,
        "audit/000000000003: it is record 4 at audit/000000000003, where record 3 belongs (one was removed or put in)",
      );
    },
    SLOW,
  );

  it(
    "catches an older head put back below what this machine has seen",
    async () => {
      const dir = await chained();
      const head = join(records(dir), "audit-head.json");
      const older = await readFile(head, "utf8");
      expect((await run(dir, ["release", "create", "--from", "local-dev", "--name", "r3"])).code).toBe(0);
      await rm(auditFile(dir, 5));
      await writeFile(head, older);
      await rm(join(records(dir), "releases/r3.json"));
      await rm(join(dir, "releases/r3.yaml"));
      await expectBroken(
        dir,
        "audit/000000000005: it is missing (this machine has seen record 5 of this store)",
      );
    },
    SLOW,
  );

  it(
    "lets a rollback go ahead on a broken chain, its record naming the break",
    async () => {
      const dir = await testdir(exampleTree());
      expect((await run(dir, ["apply", "--env", "local-dev", "--yes"])).code).toBe(0);
      expect((await run(dir, ["apply", "--env", "local-prod", "--yes"])).code).toBe(0);
      await rm(auditFile(dir, 4));
      const rolled = await run(dir, ["rollback", "--env", "local-prod", "--yes"]);
      expect(rolled.stderr).toBe("");
      expect(rolled.code).toBe(0);
      const audit = await run(dir, ["audit"]);
      expect(audit.code).toBe(1);
      expect(audit.stdout).toMatch(/^#5 \S+ alice rollback local-prod: verified$/m);
      expect(audit.stdout).toContain(
        "chain broken: broken at audit/000000000004: it is missing (the head, audit-head, names record 4)",
      );
    },
    SLOW,
  );
});

describe("records the chain cannot read", () => {
  it(
    "reports a record nested 200,000 deep by name, lists the others, and refuses appends until acknowledged",
    async () => {
      const dir = await chained();
      // Signed-looking, so that a reader checking its signature would walk it; in the middle and at the end.
      const deep = `{"signature":{"alg":"ed25519","key":"k","value":"v"},"x":${"[".repeat(200_000)}${"]".repeat(200_000)}}`;
      await writeFile(auditFile(dir, 2), deep);
      await writeFile(auditFile(dir, 4), deep);
      const store = join(dir, ".egp/store");
      await expectBroken(
        dir,
        `audit/000000000002: it cannot be read: audit/000000000002 in the store ${store} nests deeper than 64 levels: not a record egp wrote`,
      );
      const audit = await run(dir, ["audit"]);
      // Its result is the unreadable record 2, so the trail cannot say how that apply ended.
      expect(audit.stdout).toMatch(/^#1 \S+ alice apply-started local-dev: outcome unknown$/m);
      expect(audit.stdout).toMatch(/^#3 \S+ alice release-create local-dev: recorded$/m);
      expect(audit.stderr).not.toMatch(/stack|at .*\.js:\d+/i);

      expect(
        (await run(dir, ["audit", "acknowledge-break", "--reason", "planted record, removed from use"])).code,
      ).toBe(0);
      expect((await run(dir, ["apply", "--env", "local-prod", "--yes"])).code).toBe(0);
      const after = await run(dir, ["audit"]);
      expect(after.code).toBe(0);
      expect(after.stdout).toMatch(/^#7 \S+ alice apply local-prod: verified$/m);
      for (const n of [2, 4])
        expect(after.stdout).toContain(
          `Acknowledged break (#5): broken at audit/00000000000${n}: it cannot be read`,
        );
    },
    SLOW,
  );

  it(
    "reports an empty record left by a write that never finished, and refuses appends",
    async () => {
      const dir = await chained();
      await writeFile(auditFile(dir, 4), "");
      const store = join(dir, ".egp/store");
      await expectBroken(
        dir,
        `audit/000000000004: it cannot be read: audit/000000000004 in the store ${store} is empty (a write that never finished)`,
      );
    },
    SLOW,
  );
});

describe("rejections fail closed", () => {
  it(
    "refuses a release whose rejection record was renamed away, naming the missing record",
    async () => {
      const dir = await testdir(exampleTree());
      expect((await run(dir, ["apply", "--env", "local-dev", "--yes"])).code).toBe(0);
      expect((await run(dir, ["release", "create", "--from", "local-dev", "--name", "r1"])).code).toBe(0);
      const prod = join(dir, "environments/local-prod.yaml");
      await writeFile(prod, (await readFile(prod, "utf8")).replace(/^packagesFrom: .*$/m, "release: r1"));
      expect((await run(dir, ["release", "reject", "r1", "--reason", "breaks sign-on"])).code).toBe(0);
      await rename(join(records(dir), "rejected/r1.json"), join(records(dir), "rejected/r9.json"));
      const store = join(dir, ".egp/store");

      const plan = await run(dir, ["plan", "--env", "local-prod"]);
      expect(plan.code).toBe(1);
      expect(plan.stderr).toBe(
        `egp: EGP_RELEASE_REJECTED release r1 was rejected (the audit chain's head, audit-head, names it), but its record rejected/r1 is missing from the store ${store}; egp never promotes it: name another release in environments/local-prod.yaml\n`,
      );
      await expectBroken(dir, "rejected/r1: it is missing, but audit/000000000004 records the rejection");

      // Acknowledging the break records it; the release stays refused.
      expect((await run(dir, ["audit", "acknowledge-break", "--reason", "record lost"])).code).toBe(0);
      const apply = await run(dir, ["apply", "--env", "local-prod", "--yes"]);
      expect(apply.code).toBe(1);
      expect(apply.stderr).toContain(
        "egp: EGP_RELEASE_REJECTED release r1 was rejected (the audit chain's head, audit-head, names it), but its record rejected/r1 is missing",
      );
      const audit = await run(dir, ["audit"]);
      expect(audit.code).toBe(0);
      expect(audit.stdout).toMatch(/^#6 \S+ alice apply local-prod: refused$/m);
    },
    SLOW,
  );
});
