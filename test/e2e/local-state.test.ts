import { chmod, chown, lstat, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sealedLine } from "../../src/apply/journal.ts";
import { localKey } from "../../src/io/local-key.ts";
import { egp, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * What a pull request or a damaged `.egp/` can do to a run, through the egp binary: names that are
 * Object's own, journals egp can't read.
 */

const ENVIRONMENT = "url: embedded:empty\nroles: { General User: 2 }\ngroups: { Everyone: 1 }\n";
const KEYED = { EGP_STATE_KEY: "a-test-key-of-at-least-32-characters" };
const USER = ["kind: User", "userName: jdoe", "firstName: Jane", "lastName: Doe"];

describe("names that Object has built in", () => {
  it("are refused by validate --env at the name's position, not sent to the platform", async () => {
    const dir = await testdir({
      "environments/dev.yaml": ENVIRONMENT,
      "manifests/users.yaml": [...USER, "roles: [General User, constructor]", ""].join("\n"),
    });
    const run = await egp(["validate", "--env", "dev", "--dir", dir]);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      'manifests/users.yaml:5:23 users[0].roles[1]: role "constructor" is not in the roles of environments/dev.yaml (General User)',
      "egp: EGP_MANIFEST_INVALID invalid: 1 error",
    ]);
  });
});

describe("an apply journal egp can't read", () => {
  async function withUnreadableJournal(): Promise<{ dir: string; journal: string }> {
    const dir = await testdir({
      "environments/dev.yaml": ENVIRONMENT,
      "manifests/users.yaml": [...USER, "roles: [General User]", ""].join("\n"),
    });
    const folder = join(dir, ".egp", "journal", "dev");
    await mkdir(folder, { recursive: true });
    const journal = join(folder, "0123456789abcdef.jsonl");
    const plan = {
      format: 1,
      id: "0123456789abcdef",
      environment: "dev",
      steps: [{ input: { roles: [null] } }],
    };
    // Sealed with the runs' key: egp wrote it, and it still can't read its plan.
    const line = sealedLine(
      { type: "plan", at: "2026-01-01T00:00:00.000Z", plan },
      "0123456789abcdef",
      localKey(KEYED),
    );
    await writeFile(journal, `${line}\n`);
    return { dir, journal };
  }

  it("stops an apply with one line that says how to discard it", async () => {
    const { dir, journal } = await withUnreadableJournal();
    const run = await egp(["apply", "--env", "dev", "--yes", "--dir", dir], { env: KEYED });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toContain(
      `egp: EGP_JOURNAL_UNREADABLE ${journal}: egp can't read this apply journal (its plan: `,
    );
    expect(run.stderr).toContain("discard it with 'egp apply --env dev --discard'");
  });

  it("is announced by plan, which goes on", async () => {
    const { dir } = await withUnreadableJournal();
    const run = await egp(["plan", "--env", "dev", "--dir", dir], { env: KEYED });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('User "jdoe" will be created');
    expect(run.stderr).toContain("egp can't read this apply journal");
  });

  it("is cleared by apply --discard, after which apply runs", async () => {
    const { dir, journal } = await withUnreadableJournal();
    const discard = await egp(["apply", "--env", "dev", "--discard", "--dir", dir], { env: KEYED });
    expect(discard).toMatchObject({ code: 0, stderr: "" });
    expect(discard.stdout).toBe(`Discarded ${journal}, an apply journal egp can't read.\n`);
    expect(await readFile(journal, "utf8")).toContain('"type":"closed"');
    const apply = await egp(["apply", "--env", "dev", "--yes", "--dir", dir], { env: KEYED });
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain("Apply complete: 1 added");
  });
});

describe("an embedded environment's data file", () => {
  it("is refused by validate when it lies outside .egp/, and nothing is written there", async () => {
    const outside = join(await testdir({}), "made-by-egp.json");
    const dir = await testdir({
      "environments/dev.yaml": `url: embedded:empty?data=${outside}\n`,
      "SECRETS.env": "SECRET_LINE=hunter2\n",
      "environments/prod.yaml": "url: embedded:empty?data=SECRETS.env\n",
    });
    const validate = await egp(["validate", "--dir", dir]);
    expect(validate.code).toBe(1);
    expect(lines(validate.stderr)).toEqual([
      "environments/dev.yaml:1:6 url: data= must name a file inside the repository's .egp/ folder (for example .egp/dev.json), not one of egp's own folders",
      "environments/prod.yaml:1:6 url: data= must name a file inside the repository's .egp/ folder (for example .egp/dev.json), not one of egp's own folders",
      "egp: EGP_MANIFEST_INVALID invalid: 2 errors",
    ]);
    const plan = await egp(["plan", "--env", "dev", "--dir", dir]);
    expect(plan.code).toBe(1);
    await expect(readFile(outside)).rejects.toThrow("ENOENT");
    const prod = await egp(["plan", "--env", "prod", "--dir", dir]);
    expect(prod.code).toBe(1);
    expect(prod.stderr).not.toContain("SECRET");
  });

  it("that is neither SQLite nor JSON is one line that quotes none of it", async () => {
    const dir = await testdir({
      "environments/dev.yaml": "url: embedded:empty?data=.egp/dev.json\n",
      ".egp/dev.json": "SECRET_LINE=hunter2\n",
    });
    const run = await egp(["plan", "--env", "dev", "--dir", dir]);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `egp: EGP_DATA_UNREADABLE ${join(dir, ".egp", "dev.json")} cannot be read as emulator state (neither SQLite nor JSON); move it away to start over from the seed`,
    ]);
  });

  it("that is JSON but not emulator state is one line, not an internal error", async () => {
    for (const text of ['{"format":1}', '{"format":1,"SECRET_KEY":"hunter2","users":{"1":5}}']) {
      const dir = await testdir({
        "environments/dev.yaml": "url: embedded:empty?data=.egp/dev.json\n",
        ".egp/dev.json": text,
      });
      const run = await egp(["plan", "--env", "dev", "--dir", dir]);
      expect(run.code).toBe(1);
      expect(lines(run.stderr)).toEqual([
        `egp: EGP_DATA_UNREADABLE ${join(dir, ".egp", "dev.json")} cannot be read as emulator state (not an egp emulator state); move it away to start over from the seed`,
      ]);
    }
  });
});

/** Every folder and file under `root`, with its permission bits, without following links. */
async function modes(root: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      found[path.slice(root.length + 1)] = ((await lstat(path)).mode & 0o777).toString(8);
      if (entry.isDirectory()) await walk(path);
    }
  };
  found["."] = ((await lstat(root)).mode & 0o777).toString(8);
  await walk(root);
  return found;
}

describe(".egp/", () => {
  const repository = (): Promise<string> =>
    testdir({
      "environments/dev.yaml": "url: embedded:empty?data=.egp/dev.json\nroles: { General User: 2 }\n",
      "manifests/users.yaml": [...USER, "roles: [General User]", ""].join("\n"),
    });

  it("is made private: folders 0700 and files 0600, journals and embedded data included", async () => {
    const dir = await repository();
    const run = await egp(["apply", "--env", "dev", "--yes", "--dir", dir]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const found = await modes(join(dir, ".egp"));
    expect(Object.keys(found)).toEqual(
      expect.arrayContaining(["journal", "journal/dev", "locks", "dev.json", ".gitignore"]),
    );
    expect(Object.keys(found).some((path) => path.endsWith(".jsonl"))).toBe(true);
    for (const [path, mode] of Object.entries(found))
      expect(`${path} ${mode}`).toBe(
        `${path} ${(await lstat(join(dir, ".egp", path))).isDirectory() ? "700" : "600"}`,
      );
  });

  it("made by an earlier version (0755, 0644) is tightened without a word", async () => {
    const dir = await repository();
    await egp(["apply", "--env", "dev", "--yes", "--dir", dir]);
    for (const [path, mode] of [
      [".egp", 0o755],
      [".egp/journal", 0o755],
      [".egp/journal/dev", 0o755],
      [".egp/dev.json", 0o644],
    ] as const)
      await chmod(join(dir, path), mode);
    const run = await egp(["plan", "--env", "dev", "--dir", dir]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const found = await modes(join(dir, ".egp"));
    expect([found["."], found.journal, found["journal/dev"], found["dev.json"]]).toEqual([
      "700",
      "700",
      "700",
      "600",
    ]);
  });

  it("refuses a folder that is a symbolic link, in one line, and writes nothing through it", async () => {
    for (const folder of ["journal", "locks"]) {
      const dir = await repository();
      const elsewhere = await testdir({});
      await mkdir(join(dir, ".egp"), { recursive: true });
      await symlink(elsewhere, join(dir, ".egp", folder));
      const run = await egp(["apply", "--env", "dev", "--yes", "--dir", dir]);
      expect(run.code).toBe(1);
      expect(lines(run.stderr)).toEqual([
        `egp: EGP_STATE_UNSAFE ${join(dir, ".egp", folder)} is a symbolic link: egp keeps its state only in folders of its own user; remove it, and egp makes it again`,
      ]);
      expect(await readdir(elsewhere)).toEqual([]);
    }
  });

  it("refuses .egp itself as a link, and an embedded data file that is one", async () => {
    const dir = await repository();
    const elsewhere = await testdir({ "state.json": "{}" });
    await symlink(elsewhere, join(dir, ".egp"));
    const plan = await egp(["plan", "--env", "dev", "--dir", dir]);
    expect(plan.code).toBe(1);
    expect(lines(plan.stderr)).toEqual([
      expect.stringContaining(`egp: EGP_STATE_UNSAFE ${join(dir, ".egp")} is a symbolic link`),
    ]);

    const other = await repository();
    await mkdir(join(other, ".egp"));
    await symlink(join(elsewhere, "state.json"), join(other, ".egp", "dev.json"));
    const linked = await egp(["plan", "--env", "dev", "--dir", other]);
    expect(linked.code).toBe(1);
    expect(lines(linked.stderr)).toEqual([
      expect.stringContaining(`egp: EGP_STATE_UNSAFE ${join(other, ".egp", "dev.json")} is a symbolic link`),
    ]);
    expect(await readFile(join(elsewhere, "state.json"), "utf8")).toBe("{}");
  });

  it("refuses an embedded data file's SQLite companion (-wal, -shm, -journal) that is a link", async () => {
    for (const suffix of ["-wal", "-shm", "-journal"]) {
      const dir = await repository();
      const elsewhere = await testdir({ target: "" });
      await mkdir(join(dir, ".egp"));
      await symlink(join(elsewhere, "target"), join(dir, ".egp", `dev.json${suffix}`));
      const run = await egp(["plan", "--env", "dev", "--dir", dir]);
      expect(run.code).toBe(1);
      expect(lines(run.stderr)).toEqual([
        `egp: EGP_STATE_UNSAFE ${join(dir, ".egp", `dev.json${suffix}`)} is a symbolic link: egp keeps its state only in folders of its own user; remove it, and egp makes it again`,
      ]);
      expect(await readFile(join(elsewhere, "target"), "utf8")).toBe("");
    }
  });

  it.runIf(process.getuid?.() === 0)("refuses a folder that belongs to another user", async () => {
    const dir = await repository();
    await mkdir(join(dir, ".egp", "journal"), { recursive: true });
    await chown(join(dir, ".egp", "journal"), 4242, 4242);
    const run = await egp(["plan", "--env", "dev", "--dir", dir]);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `egp: EGP_STATE_UNSAFE ${join(dir, ".egp", "journal")} belongs to another user (uid 4242): egp keeps its state only in folders of its own user; remove it, and egp makes it again`,
    ]);
  });
});
