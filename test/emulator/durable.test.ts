import { type ChildProcess, spawn } from "node:child_process";
import {
  copyFileSync,
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
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { allPackages } from "../../src/emulator/packages/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { StateDb } from "../../src/emulator/state-db.ts";
import { ROOT } from "../helpers/cli.ts";
import { createPackage, generate, until } from "../helpers/packages.ts";
import { type Json, Raw } from "../helpers/raw.ts";

/*
 * `--data` is durable (DESIGN §4.3): a write answered 200 is on disk, whatever happens to the process
 * next; several processes share the file live; a write the disk refuses is refused to the caller.
 */

const root = mkdtempSync(join(tmpdir(), "egp-durable-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const PASSWORD = "Durable-pass1!";
const SERVICES_PARAMETER = 3;

/** `egp emulator --data FILE` as a child, as a user runs it. */
async function spawnEmulator(
  dataFile: string,
  seed = "empty",
  more: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin/egp.js"), "emulator", "--port", "0", "--seed", seed, "--data", dataFile, ...more],
    { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`the emulator exited (${code}) before listening: ${out}`)));
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return { child, url };
}

/**
 * `work` with two processes on one data file: an `egp emulator --data FILE` child and an emulator
 * of this process; both are ended after it (the child by SIGTERM, which closes its store).
 */
async function twoProcesses<T>(
  dataFile: string,
  seed: string,
  more: readonly string[],
  work: (child: { url: string }, here: Emulator) => Promise<T>,
): Promise<T> {
  const first = await spawnEmulator(dataFile, seed, more);
  const exited = new Promise<void>((resolve) => first.child.once("exit", () => resolve()));
  const second = await startEmulator({ seed, dataFile });
  try {
    return await work(first, second);
  } finally {
    first.child.kill("SIGTERM");
    await exited;
    await second.close();
  }
}

/** What a process opening FILE afterwards finds in it. */
async function reopened<T>(dataFile: string, look: (emulator: Emulator) => T): Promise<T> {
  const emulator = await startEmulator({ dataFile });
  try {
    return look(emulator);
  } finally {
    await emulator.close();
  }
}

async function parameterOf(raw: Raw, token: string): Promise<Json> {
  return (await raw.read(`/core/system/securityparameter/${SERVICES_PARAMETER}`, token)).body.RequestedObject;
}

describe("--data durability", () => {
  it("every acknowledged write survives kill -9 during 8 concurrent writers (3 kills)", {
    timeout: 60_000,
  }, async () => {
    const dataFile = join(root, "killed.json");
    const acknowledgedUsers: string[] = [];
    let lastAcknowledgedUpdate = 0;
    for (let kill = 0; kill < 3; kill++) {
      const { child, url } = await spawnEmulator(dataFile);
      const raw = new Raw(url);
      const token = await raw.token();
      const parameter = await parameterOf(raw, token);
      let acknowledgedThisRound = 0;
      let stop = false;
      const killed = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const name = `k${kill}w${w}u${i}`;
          const response = await raw
            .call("/core/system/user", {
              method: "POST",
              token,
              body: { User: { FirstName: "K", LastName: name, UserName: name }, Password: PASSWORD },
            })
            .catch(() => undefined);
          if (!response) return; // the connection died with the process
          expect(response.status, response.text).toBe(200);
          acknowledgedUsers.push(name);
          if (++acknowledgedThisRound === 300) {
            child.kill("SIGKILL");
            stop = true;
          }
        }
      };
      const updater = async () => {
        for (let n = lastAcknowledgedUpdate + 1; !stop; n++) {
          const response = await raw
            .call("/core/system/securityparameter", {
              method: "PUT",
              token,
              body: { ...parameter, Description: `update ${n}` },
            })
            .catch(() => undefined);
          if (!response) return;
          expect(response.status, response.text).toBe(200);
          lastAcknowledgedUpdate = n;
        }
      };
      await Promise.all([...Array.from({ length: 8 }, (_, w) => writer(w)), updater()]);
      await killed;
    }

    const { missing, stored } = await reopened(dataFile, ({ store }) => ({
      missing: acknowledgedUsers.filter((name) => !store.userByName(name)),
      stored: Number(/update (\d+)/.exec(store.securityParameter(3)?.Description ?? "")?.[1]),
    }));
    expect({ acknowledged: acknowledgedUsers.length, missing: missing.length }).toEqual({
      acknowledged: acknowledgedUsers.length,
      missing: 0,
    });
    // The stored update is the last one answered, or one sent after it (applied, answer lost).
    expect(stored).toBeGreaterThanOrEqual(lastAcknowledgedUpdate);
    // The last connection's close folds the WAL in: nothing but the file is left.
    expect(readdirSync(root).filter((name) => name.startsWith("killed.json"))).toEqual(["killed.json"]);
  });

  it("two processes on one data file at once: each sees the other's writes, and ids never collide", {
    timeout: 30_000,
  }, async () => {
    const dataFile = join(root, "shared.json");
    await twoProcesses(dataFile, "empty", [], async (first, second) => {
      const [one, two] = [new Raw(first.url), new Raw(second.url)];
      const [tokenOne, tokenTwo] = [await one.token(), await two.token()];
      const create = async (raw: Raw, token: string, name: string) => {
        const response = await raw.call("/core/system/user", {
          method: "POST",
          token,
          body: { User: { FirstName: "A", LastName: name }, Password: PASSWORD },
        });
        expect(response.status, response.text).toBe(200);
        return response.body.RequestedObject.Id as number;
      };
      const ids = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0 ? create(one, tokenOne, `One${i}`) : create(two, tokenTwo, `Two${i}`),
        ),
      );
      expect(new Set(ids).size).toBe(20);
      // Each reads what the other wrote, over HTTP, without a restart.
      const read = async (raw: Raw, token: string, id: number) =>
        (await raw.read(`/core/system/user/${id}`, token)).body.RequestedObject?.LastName;
      expect(await read(one, tokenOne, ids[1] as number)).toBe("Two1");
      expect(await read(two, tokenTwo, ids[0] as number)).toBe("One0");
    });
    const names = await reopened(dataFile, (emulator) =>
      emulator.store.allUsers().map((record) => record.user.LastName),
    );
    for (let i = 0; i < 20; i++) expect(names).toContain(i % 2 === 0 ? `One${i}` : `Two${i}`);
  });

  it("a process that ends keeps the packages another process made meanwhile (apply --env local-prod beside apply --env local-dev)", {
    timeout: 30_000,
  }, async () => {
    const dataFile = join(root, "packages-shared.json");
    // The child has read the packages (none) and writes nothing more before it ends.
    const id = await twoProcesses(dataFile, "demo-dev", [], async (_child, second) => {
      const raw = new Raw(second.url);
      const made = await createPackage(raw, await raw.token(), {
        Name: "Made by the second",
        PackageObjects: [{ Guid: demoGuid("risks"), Type: "Application" }],
      });
      await second.store.settled();
      return made;
    });
    expect(
      await reopened(dataFile, (emulator) =>
        allPackages(emulator.store).map((record) => [record.Id, record.Name]),
      ),
    ).toEqual([[id, "Made by the second"]]);
  });

  it("a generation that ends in one process keeps the package another process made while it ran", {
    timeout: 30_000,
  }, async () => {
    const dataFile = join(root, "packages-generating.json");
    await twoProcesses(dataFile, "demo-dev", ["--faults", "jobMs=1500"], async (first, second) => {
      const [one, two] = [new Raw(first.url), new Raw(second.url)];
      const tokenOne = await one.token();
      const body = (name: string) => ({
        Name: name,
        PackageObjects: [{ Guid: demoGuid("risks"), Type: "Application" }],
      });
      const generating = await createPackage(one, tokenOne, body("Generated by the first"));
      expect((await generate(one, tokenOne, generating)).status).toBe(200);
      // Made while the child's generation waits on its timer; nothing asks the child after.
      const tokenTwo = await two.token();
      const made = await createPackage(two, tokenTwo, body("Made by the second"));
      const read = async (id: number) =>
        (await two.read(`/core/package/${id}`, tokenTwo, { prefix: "/api" })).body.RequestedObject;
      await until(
        async () => ((await read(generating))?.Status === "Ready" ? true : undefined),
        "the child's generation",
      );
      expect(await read(made)).toMatchObject({ Name: "Made by the second", Status: "Created" });
    });
  });

  it("an earlier version's JSON data file is turned into SQLite on open, the JSON kept beside it", async () => {
    const dataFile = join(root, "earlier.json");
    const memory = await startEmulator({ seed: "demo-dev" });
    const raw = new Raw(memory.url);
    const token = await raw.token();
    await raw.call("/core/system/user", {
      method: "POST",
      token,
      body: { User: { FirstName: "E", LastName: "Earlier" }, Password: PASSWORD },
    });
    const snapshot = JSON.stringify(memory.store.data);
    await memory.close();
    writeFileSync(dataFile, snapshot, { mode: 0o600 });

    const opened = await startEmulator({ dataFile });
    try {
      expect(opened.store.userByName("earliere")).toBeDefined();
    } finally {
      await opened.close();
    }
    expect(readFileSync(dataFile).subarray(0, 16).toString("latin1")).toBe("SQLite format 3\0");
    expect(readFileSync(`${dataFile}.json-v1.bak`, "utf8")).toBe(snapshot);
    const again = await startEmulator({ dataFile });
    try {
      expect(again.store.userByName("earliere")).toBeDefined();
    } finally {
      await again.close();
    }
  });

  it("a JSON data file with a log an earlier version did not fold in is refused in one line", async () => {
    const dataFile = join(root, "unfolded.json");
    const memory = await startEmulator({ seed: "empty" });
    writeFileSync(dataFile, JSON.stringify(memory.store.data));
    await memory.close();
    writeFileSync(`${dataFile}.log`, '[["v","SECRET",1]]\n');
    await expect(startEmulator({ dataFile })).rejects.toThrow(
      `${dataFile} cannot be read as emulator state (${dataFile}.log holds changes an earlier egp did not fold in; open the file once with that version); move it away to start over from the seed`,
    );
    expect(readFileSync(dataFile, "utf8").startsWith("{")).toBe(true);
  });

  it("a SQLite file of another program is refused, and left as it was", async () => {
    const dataFile = join(root, "foreign.json");
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(dataFile);
    db.exec("CREATE TABLE secrets (value TEXT); INSERT INTO secrets VALUES ('hunter2')");
    db.close();
    const before = readFileSync(dataFile);
    await expect(startEmulator({ dataFile })).rejects.toThrow(
      `${dataFile} cannot be read as emulator state (a SQLite database of another program); move it away to start over from the seed`,
    );
    expect(readFileSync(dataFile).equals(before)).toBe(true);
  });

  it("a write that cannot be persisted is refused with an envelope and undone", async () => {
    const dataFile = join(root, "full.json");
    let full = false;
    const enospc = () =>
      Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    const emulator = await startEmulator({
      seed: "empty",
      dataFile,
      persistFault: () => (full ? enospc() : undefined),
    });
    try {
      const raw = new Raw(emulator.url);
      const token = await raw.token();
      full = true;
      const refused = await raw.call("/core/system/user", {
        method: "POST",
        token,
        body: { User: { FirstName: "N", LastName: "Nospace" }, Password: PASSWORD },
      });
      expect(refused.status).toBe(507);
      expect(refused.body.IsSuccessful).toBe(false);
      expect(refused.body.ValidationMessages[0].MessageKey).toBe("InsufficientStorage");
      expect(emulator.store.userByName("nospacen")).toBeUndefined();
      full = false;
      const accepted = await raw.call("/core/system/user", {
        method: "POST",
        token,
        body: { User: { FirstName: "N", LastName: "Nospace" }, Password: PASSWORD },
      });
      expect(accepted.status, accepted.text).toBe(200);
    } finally {
      await emulator.close();
    }
    const reopened = await startEmulator({ dataFile });
    try {
      expect(reopened.store.userByName("nospacen")).toBeDefined();
    } finally {
      await reopened.close();
    }
  });

  it("what is on disk before close is the live state, after every kind of user and parameter write", async () => {
    const dataFile = join(root, "routes.json");
    const emulator = await startEmulator({ seed: "demo-dev", dataFile });
    try {
      const raw = new Raw(emulator.url);
      const token = await raw.token();
      const call = async (path: string, method: string, body?: unknown) => {
        const response = await raw.call(path, { method, token, body });
        expect(response.status, `${method} ${path}: ${response.text}`).toBe(200);
        return response.body;
      };
      const id = (
        await call("/core/system/user", "POST", {
          User: { FirstName: "R", LastName: "Routes" },
          Password: PASSWORD,
        })
      ).RequestedObject.Id;
      const user = (await raw.read(`/core/system/user/${id}`, token)).body.RequestedObject;
      await call("/core/system/user", "PUT", {
        User: { ...user, Title: "Tester" },
        Contacts: [{ ContactType: 7, ContactSubType: 2, Value: "r@example.com", IsDefault: true }],
      });
      await call("/core/system/userrole", "PUT", { UserId: id, RoleId: 1, IsAdd: true });
      await call("/core/system/usergroup", "PUT", { UserId: id, GroupId: 2, IsAdd: true });
      await call("/core/system/userpassword", "PUT", { UserId: id, NewPassword: "Another-pass2!" });
      await call(`/core/system/user/status/inactive/${id}`, "POST");
      await call(`/core/system/user/status/active/${id}`, "POST");
      const parameter = (await raw.read("/core/system/securityparameter/2", token)).body.RequestedObject;
      await call("/core/system/securityparameter", "PUT", {
        ...parameter,
        Default: true,
        Description: "now default",
      });
      await raw.login("routesr", "wrong");
      await raw.token("routesr", "Another-pass2!");
      const victim = (
        await call("/core/system/user", "POST", {
          User: { FirstName: "V", LastName: "Victim" },
          Password: PASSWORD,
        })
      ).RequestedObject.Id;
      await call(`/core/system/user/${victim}`, "DELETE");
      await emulator.store.settled();

      // A copy of what is on disk now, read as the next process would after a crash.
      const copy = join(root, "routes-copy.json");
      copyFileSync(dataFile, copy);
      if (existsSync(`${dataFile}-wal`)) copyFileSync(`${dataFile}-wal`, `${copy}-wal`);
      const reread = StateDb.open({ file: copy, seed: () => ({ empty: true }), accepts: () => false });
      const live = JSON.parse(JSON.stringify(emulator.store.data));
      // Made empty by the first read of packages, not by a write (packagesOf); close keeps it.
      expect(live.packages.byId).toEqual({});
      delete live.packages;
      expect(reread.data).toEqual(live);
      reread.close();
    } finally {
      await emulator.close();
    }
  });
});
