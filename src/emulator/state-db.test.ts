import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { StateDb } from "./state-db.ts";

const root = mkdtempSync(join(tmpdir(), "egp-state-db-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
const open = (file: string, seed: Record<string, unknown> = { format: 1 }, fault?: () => Error | undefined) =>
  StateDb.open({ file, seed: () => structuredClone(seed), accepts: () => true, fault });

describe("StateDb", () => {
  it("keeps entry deletions, a segment that stops being an object, and an emptied object across a reopen", () => {
    const file = join(root, `s${++count}.db`);
    const first = open(file, {
      format: 1,
      users: { "1": { name: "a" }, "2": { name: "b" } },
      tasks: { "1": 1 },
    });
    delete (first.data.users as Record<string, unknown>)["1"];
    first.commit(new Set(["users/1"]));
    first.data.tasks = "flat";
    first.data.empty = {};
    first.commit(null);
    first.close();
    const second = open(file);
    expect(second.data).toEqual({ format: 1, users: { "2": { name: "b" } }, tasks: "flat", empty: {} });
    second.close();
  });

  it("a refused commit writes nothing and puts data back to what is on disk", () => {
    const file = join(root, `s${++count}.db`);
    let full = false;
    const state = open(file, { format: 1, users: {} }, () =>
      full ? Object.assign(new Error("ENOSPC"), { code: "ENOSPC" }) : undefined,
    );
    full = true;
    (state.data.users as Record<string, unknown>)["7"] = { name: "refused" };
    expect(() => state.commit(new Set(["users/7"]))).toThrow("ENOSPC");
    expect(state.data).toEqual({ format: 1, users: {} });
    state.close();
    const reopened = open(file);
    expect(reopened.data).toEqual({ format: 1, users: {} });
    reopened.close();
  });

  it("reads another connection's commits, and only the rows it did not write itself", () => {
    const file = join(root, `s${++count}.db`);
    const state = open(file, { format: 1, users: { "1": { name: "a" } }, counters: { user: 1 } });
    const other = new DatabaseSync(file);
    other.exec(
      `UPDATE rows SET json = '{"name":"theirs"}', seq = 2 WHERE key = '["users","1"]';
       INSERT INTO rows VALUES ('["users","2"]', '{"name":"b"}', 2);
       UPDATE meta SET value = 2 WHERE name = 'seq'`,
    );
    other.close();
    (state.data.counters as Record<string, number>).user = 5;
    (state.data.users as Record<string, unknown>)["1"] = { name: "ours" };
    state.commit(new Set(["users/1", "counters"]));
    expect(state.data.users).toEqual({ "1": { name: "ours" }, "2": { name: "b" } });
    state.close();
    expect(open(file).data.users).toEqual({ "1": { name: "ours" }, "2": { name: "b" } });
  });

  it("refuses a row that names __proto__, in one line", () => {
    const file = join(root, `s${++count}.db`);
    open(file).close();
    const other = new DatabaseSync(file);
    other.exec(
      `INSERT INTO rows VALUES ('["__proto__"]', '{"polluted":true}', 1); UPDATE meta SET value = 1`,
    );
    other.close();
    expect(() => open(file)).toThrow(
      `${file} cannot be read as emulator state (a row that is not the emulator's)`,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
