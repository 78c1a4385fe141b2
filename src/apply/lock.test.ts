import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireLock, LockedError } from "./lock.ts";

const root = mkdtempSync(join(tmpdir(), "egp-lock-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
const stateDir = () => join(root, `s${++count}`);

const DEAD = { pid: 2 ** 22 + 9, host: hostname(), startedAt: "2026-01-01T00:00:00.000Z", command: "gone" };

function writeLock(dir: string, text: string): string {
  mkdirSync(join(dir, "locks"), { recursive: true });
  const file = join(dir, "locks", "prod.lock");
  writeFileSync(file, text);
  return file;
}

describe("acquireLock, a lock whose process is gone", () => {
  it("is taken over, and the take-over mutex it leaves is private (0600), as all of .egp/ is", () => {
    const dir = stateDir();
    const file = writeLock(dir, JSON.stringify(DEAD));
    const lock = acquireLock(dir, "prod", "test");
    expect(lock.tookOver?.pid).toBe(DEAD.pid);
    lock.release();
    expect(statSync(`${file}.takeover`).mode & 0o777).toBe(0o600);
  });
});

describe("acquireLock, lock files that name no holder", () => {
  it.each([
    ["null", "null"],
    ["garbage", "}{ not json"],
    ["a holder without a pid", '{"host":"h","command":"c"}'],
  ])("a lock file holding %s is a LockedError naming the file, not a crash, and stays", (_name, text) => {
    const dir = stateDir();
    const file = writeLock(dir, text);
    expect(() => acquireLock(dir, "prod", "test")).toThrow(LockedError);
    expect(() => acquireLock(dir, "prod", "test")).toThrow(
      `prod cannot be locked: the lock file ${file} is unreadable`,
    );
    expect(readdirSync(join(dir, "locks"))).toEqual(["prod.lock"]);
  });

  it("an old empty lock file is reported; a fresh one is read again until it is written", () => {
    const dir = stateDir();
    const file = writeLock(dir, "");
    utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect(() => acquireLock(dir, "prod", "test")).toThrow("it is empty");

    const fresh = stateDir();
    const young = writeLock(fresh, "");
    // Another process "finishes writing" it while we wait: we then see a live holder.
    const writer = spawn(process.execPath, [
      "-e",
      `setTimeout(() => require("node:fs").writeFileSync(${JSON.stringify(young)}, JSON.stringify({pid: ${process.pid}, host: ${JSON.stringify(hostname())}, startedAt: "x", command: "writer"})), 150)`,
    ]);
    try {
      expect(() => acquireLock(fresh, "prod", "test")).toThrow(`locked by pid ${process.pid}`);
    } finally {
      writer.kill();
    }
  });
});

/*
 * The race two runs of egp can meet (two CI jobs at once): two processes call acquireLock at the
 * same instant, 500 times, with and without a stale lock in place. Exactly one of them must get it every time.
 */
describe("acquireLock, two processes at once", () => {
  const takers: ChildProcess[] = [];
  const answers: AsyncIterator<string>[] = [];

  beforeAll(() => {
    for (let i = 0; i < 2; i++) {
      const child = spawn(process.execPath, [join(import.meta.dirname, "../../test/helpers/lock-taker.ts")], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      takers.push(child);
      answers.push(createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]());
    }
  });
  afterAll(() => {
    for (const child of takers) child.kill("SIGKILL");
  });

  async function race(rounds: number, prepare: (dir: string) => void): Promise<Record<string, number>> {
    const outcomes: Record<string, number> = {};
    for (let round = 0; round < rounds; round++) {
      const dir = stateDir();
      prepare(dir);
      const at = Date.now() + 4;
      for (const child of takers) child.stdin?.write(`${dir} ${at}\n`);
      const got = await Promise.all(answers.map(async (answer) => (await answer.next()).value as string));
      const key = got.sort().join("+");
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    return outcomes;
  }

  it("500 rounds without a lock: one owner each time", { timeout: 60_000 }, async () => {
    expect(await race(500, () => undefined)).toEqual({ "locked+taken": 500 });
  });

  it("500 rounds with a stale lock: one owner each time, the other sees it", {
    timeout: 60_000,
  }, async () => {
    expect(await race(500, (dir) => writeLock(dir, JSON.stringify(DEAD)))).toEqual({ "locked+taken": 500 });
  });
});

describe("acquireLock, leftovers", () => {
  it("removes the temp file of a taker killed before it could, not a live one's", () => {
    const dir = stateDir();
    mkdirSync(join(dir, "locks"), { recursive: true });
    const dead = join(dir, "locks", `prod.lock.${DEAD.pid}.0123abcd.tmp`);
    const live = join(dir, "locks", `prod.lock.${process.pid}.0123abcd.tmp`);
    writeFileSync(dead, "{}");
    writeFileSync(live, "{}");
    acquireLock(dir, "prod", "test").release();
    expect(readdirSync(join(dir, "locks")).sort()).toEqual([`prod.lock.${process.pid}.0123abcd.tmp`]);
  });
});
