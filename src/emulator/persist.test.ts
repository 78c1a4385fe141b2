import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DataFile } from "./persist.ts";

const root = mkdtempSync(join(tmpdir(), "egp-persist-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
const open = (file: string) => DataFile.open({ file, command: "test", waitMs: 0 });

describe("DataFile", () => {
  it("replays the log over the snapshot after a crash, dropping a torn last line", async () => {
    const file = join(root, `s${++count}.json`);
    const first = await open(file);
    const data: Record<string, unknown> = { format: 1, users: { "1": { name: "a" } }, counters: { user: 1 } };
    await first.commit(data);
    (data.users as Record<string, unknown>)["2"] = { name: "b" };
    (data.counters as Record<string, number>).user = 2;
    await first.commit(data, new Set(["users", "counters"]));
    delete (data.users as Record<string, unknown>)["1"];
    await first.commit(data, new Set(["users"]));
    // The process dies here (no close), in the middle of appending a line.
    appendFileSync(`${file}.log`, '[["s","users","3",{"name":');
    expect(readFileSync(`${file}.log`, "utf8").split("\n")).toHaveLength(3);

    // `first` is never closed: its lock names this live process, which a crash would not.
    rmSync(`${file}.lock`);
    const second = await open(file);
    expect(second.initial).toEqual({ format: 1, users: { "2": { name: "b" } }, counters: { user: 2 } });
    // Folded on open: the snapshot holds it all, the log is empty.
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(second.initial);
    expect(readFileSync(`${file}.log`, "utf8")).toBe("");
    await second.close();
    await first.abandon();
    expect(readdirSync(root).filter((name) => name.startsWith(`s${count}.`))).toEqual([`s${count}.json`]);
  });

  it("a log without its snapshot (deleted to start over) is dropped", async () => {
    const file = join(root, `s${++count}.json`);
    const first = await open(file);
    const data = { format: 1, users: { "1": { name: "a" } } };
    await first.commit(data);
    data.users["1"].name = "changed";
    await first.commit(data);
    rmSync(file);
    rmSync(`${file}.lock`);
    const second = await open(file);
    expect(second.initial).toBeUndefined();
    await second.close();
    expect(existsSync(`${file}.log`)).toBe(false);
  });

  it("a failed commit changes nothing on disk, and the next one carries its rows", async () => {
    const file = join(root, `s${++count}.json`);
    let fail = false;
    const dataFile = await DataFile.open({
      file,
      command: "test",
      waitMs: 0,
      fault: () => (fail ? Object.assign(new Error("full"), { code: "ENOSPC" }) : undefined),
    });
    const data = { format: 1, users: { "1": { name: "a" } } as Record<string, { name: string }> };
    await dataFile.commit(data);
    fail = true;
    data.users["2"] = { name: "b" };
    await expect(dataFile.commit(data)).rejects.toThrow("full");
    expect(dataFile.lastCommitted()).toEqual({ format: 1, users: { "1": { name: "a" } } });
    fail = false;
    await dataFile.commit(data);
    await dataFile.close();
    expect(JSON.parse(readFileSync(file, "utf8")).users["2"]).toEqual({ name: "b" });
  });

  it("a file that is not emulator state is refused in one line, and its lock given back", async () => {
    const file = join(root, `s${++count}.json`);
    writeFileSync(file, "{ not json");
    await expect(open(file)).rejects.toThrow(`${file} cannot be read as emulator state`);
    writeFileSync(file, "[1, 2]");
    await expect(open(file)).rejects.toThrow("not an egp emulator snapshot (format 1)");
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("a log line that is not operations on the state's own objects is refused, and reaches no prototype", async () => {
    for (const line of [
      '[["s","__proto__","polluted",1]]',
      '[["s","users","__proto__",{"polluted":1}]]',
      '[["s","nothing","k",1]]',
      "5",
      "[5]",
    ]) {
      const file = join(root, `s${++count}.json`);
      writeFileSync(file, '{"format":1,"users":{}}');
      writeFileSync(`${file}.log`, `${line}\n`);
      await expect(open(file)).rejects.toThrow(
        `${file}.log cannot be read as emulator state (not an egp emulator log)`,
      );
      expect(existsSync(`${file}.lock`)).toBe(false);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
