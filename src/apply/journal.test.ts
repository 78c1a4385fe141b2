import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, desiredUser, live } from "../../test/builders/plan.ts";
import type { PlatformClient } from "../client/client.ts";
import { ValidationError } from "../client/errors.ts";
import { planChanges } from "../plan/index.ts";
import { executePlan } from "./executor.ts";
import { Journal, type JournalEntry, JournalUnreadableError } from "./journal.ts";
import type { OpRegistry } from "./ops/types.ts";

const plan = () =>
  planChanges(desired({ users: [desiredUser("a"), desiredUser("b"), desiredUser("c")] }), live(), {
    createdAt: CREATED_AT,
  });

/** A syncFile whose fsyncs finish only when the test says so. */
function manualSync() {
  const pending: Array<() => void> = [];
  return {
    calls: () => pending.length,
    syncFile: () => new Promise<void>((resolve) => pending.push(resolve)),
    finish: (index: number) => pending[index]?.(),
  };
}

const settled = async (promise: Promise<void>) => {
  let done = false;
  promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe("Journal.record: group commit", () => {
  it("writes at once, and resolves only once an fsync that started after the write has finished", async () => {
    const sync = manualSync();
    const journal = Journal.open(mkdtempSync(join(tmpdir(), "egp-journal-")), plan(), sync);
    const first = journal.record({ type: "start", at: CREATED_AT, step: "User/a#create" });
    expect(journal.read()?.interrupted.has("User/a#create")).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sync.calls()).toBe(1);

    // Written while the first fsync runs: that fsync may not cover it, so it waits for the next.
    const second = journal.record({ type: "start", at: CREATED_AT, step: "User/b#create" });
    const third = journal.record({ type: "start", at: CREATED_AT, step: "User/c#create" });
    sync.finish(0);
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(false);
    expect(sync.calls()).toBe(2);
    sync.finish(1);
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe(true);
  });

  it("makes one fsync serve every step that wrote while it waited", async () => {
    let fsyncs = 0;
    const journal = Journal.open(mkdtempSync(join(tmpdir(), "egp-journal-")), plan(), {
      syncFile: async () => {
        fsyncs += 1;
      },
    });
    await Promise.all(
      ["a", "b", "c"].map((name) =>
        journal.record({ type: "start", at: CREATED_AT, step: `User/${name}#create` }),
      ),
    );
    expect(fsyncs).toBe(1);
    expect(journal.read()?.interrupted.size).toBe(3);
  });

  it("closes its descriptor once recorded entries are on disk, and opens it again for a later write", async () => {
    let fsyncs = 0;
    const journal = Journal.open(mkdtempSync(join(tmpdir(), "egp-journal-")), plan(), {
      syncFile: async () => {
        fsyncs += 1;
      },
    });
    const first = journal.record({ type: "start", at: CREATED_AT, step: "User/a#create" });
    await journal.flush();
    await first;
    await journal.record({ type: "done", at: CREATED_AT, step: "User/a#create", output: { id: 1 } });
    await journal.flush();
    expect(fsyncs).toBe(2);
    expect(journal.read()?.done.get("User/a#create")).toEqual({ id: 1 });
  });

  it("passes an fsync failure to every entry waiting on it", async () => {
    const journal = Journal.open(mkdtempSync(join(tmpdir(), "egp-journal-")), plan(), {
      syncFile: async () => {
        throw new Error("disk full");
      },
    });
    const entries = ["a", "b"].map((name) =>
      journal.record({ type: "start", at: CREATED_AT, step: `User/${name}#create` }),
    );
    for (const entry of entries) await expect(entry).rejects.toThrow("disk full");
  });
});

describe("Journal: a failed step", () => {
  it("records the failure's code, the step's kind and key, and a structured cause, not a string", async () => {
    const dir = mkdtempSync(join(tmpdir(), "egp-journal-"));
    const journal = Journal.open(dir, plan());
    const refused = new ValidationError({
      code: "EGP_VALIDATION",
      message: "POST /platformapi/core/system/user: HTTP 400 rejected: FirstName: Required",
      status: 400,
      method: "POST",
      path: "/platformapi/core/system/user",
      validationMessages: [{ MessageKey: "InvalidValue", Description: "FirstName: Required" }],
    });
    const ops = new Proxy({} as OpRegistry, {
      get: () => async (context: { step: { id: string } }) => {
        if (context.step.id === "User/b#create") throw refused;
        return { id: 1 };
      },
    });
    await executePlan({
      plan: plan(),
      desired: desired(),
      clients: new Map([["prod", {} as PlatformClient]]),
      journal,
      stateDir: dir,
      concurrency: 1,
      logger: pino({ level: "silent" }),
      ops,
    });
    const entries = readFileSync(journal.file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as JournalEntry);
    const failed = entries.filter((entry) => entry.type === "failed");
    expect(failed).toEqual([
      {
        type: "failed",
        seal: expect.stringMatching(/^[0-9a-f]{64}$/),
        at: expect.any(String),
        step: "User/b#create",
        error: {
          code: "EGP_VALIDATION",
          message: refused.message,
          kind: "User",
          key: "b",
          op: "user.create",
          step: "User/b#create",
          cause: {
            code: "EGP_VALIDATION",
            name: "ValidationError",
            message: refused.message,
            status: 400,
            method: "POST",
            path: "/platformapi/core/system/user",
            messageKeys: ["InvalidValue"],
          },
        },
      },
    ]);
  });
});

describe("Journal.open: runs of a plan", () => {
  it("reopens an unfinished run, and starts a new run once the last one completed", () => {
    const stateDir = mkdtempSync(join(tmpdir(), "egp-journal-"));
    const saved = plan();
    const first = Journal.open(stateDir, saved);
    expect(first.run).toBe(saved.id);
    first.append({ type: "start", at: CREATED_AT, step: saved.steps[0]!.id });
    // Interrupted: the same run goes on.
    expect(Journal.open(stateDir, saved).file).toBe(first.file);
    first.append({ type: "complete", at: CREATED_AT, ok: true });
    // Applied again after it completed (after a rollback): a run of its own, nothing carried.
    const second = Journal.open(stateDir, saved);
    expect(second.file).not.toBe(first.file);
    expect(second.run).toBe(`${saved.id}.2`);
    expect(second.read()?.complete).toBe(false);
    expect(second.read()?.done.size).toBe(0);
    second.append({ type: "complete", at: CREATED_AT, ok: true });
    expect(Journal.open(stateDir, saved).run).toBe(`${saved.id}.3`);
  });
});

describe("Journal: one egp did not write here", () => {
  const started = (dir: string) => {
    const journal = Journal.open(join(dir, ".egp"), plan());
    journal.append({ type: "start", at: CREATED_AT, step: "User/b#create" });
    return journal;
  };

  it("refuses a line without this user's seal, and reads one closed here as nothing to resume", () => {
    const dir = mkdtempSync(join(tmpdir(), "egp-journal-"));
    const journal = started(dir);
    appendFileSync(
      journal.file,
      `${JSON.stringify({ type: "done", at: CREATED_AT, step: "User/b#create", output: {} })}\n`,
    );
    expect(() => Journal.unfinished(join(dir, ".egp"), "prod")).toThrow(JournalUnreadableError);
    expect(() => Journal.unfinished(join(dir, ".egp"), "prod")).toThrow(/not written by egp for this user/);
    journal.close("discarded");
    expect(Journal.unfinished(join(dir, ".egp"), "prod")).toBeUndefined();
  });

  it("refuses a journal git tracks, whatever its seals", () => {
    const dir = mkdtempSync(join(tmpdir(), "egp-journal-"));
    const journal = started(dir);
    const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { stdio: "ignore" });
    git("init", "-q");
    git("add", "-f", journal.file);
    expect(() => Journal.unfinished(join(dir, ".egp"), "prod")).toThrow(/git tracks it/);
  });
});
