import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.ts";
import { DataFile } from "../../src/emulator/persist.ts";
import { ROOT } from "../helpers/cli.ts";
import { type Json, Raw } from "../helpers/raw.ts";

/*
 * `--data` is durable (DESIGN §4.3): a write answered 200 is on disk, whatever happens to the process
 * next; a second process waits for the first; a write the disk refuses is refused to the caller.
 */

const root = mkdtempSync(join(tmpdir(), "egp-durable-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const PASSWORD = "Durable-pass1!";
const SERVICES_PARAMETER = 3;

/** `egp emulator --data FILE` as a child, as a user runs it. */
async function spawnEmulator(dataFile: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin/egp.js"), "emulator", "--port", "0", "--seed", "empty", "--data", dataFile],
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

    const reopened = await startEmulator({ dataFile });
    try {
      const missing = acknowledgedUsers.filter((name) => !reopened.store.userByName(name));
      expect({ acknowledged: acknowledgedUsers.length, missing: missing.length }).toEqual({
        acknowledged: acknowledgedUsers.length,
        missing: 0,
      });
      // The stored update is the last one answered, or one sent after it (applied, answer lost).
      const stored = Number(/update (\d+)/.exec(reopened.store.securityParameter(3)?.Description ?? "")?.[1]);
      expect(stored).toBeGreaterThanOrEqual(lastAcknowledgedUpdate);
    } finally {
      await reopened.close();
    }
    // No temp file or log is left; the takeover mutex of the owner lock stays (src/io/lock-file.ts).
    expect(readdirSync(root).filter((name) => name.startsWith("killed.json"))).toEqual([
      "killed.json",
      "killed.json.lock.takeover",
    ]);
  });

  it("a second process waits for the first to close the data file, says who holds it, then sees its writes", {
    timeout: 30_000,
  }, async () => {
    const dataFile = join(root, "shared.json");
    const first = await startEmulator({ seed: "empty", dataFile, holder: "egp apply --env local-prod" });
    const raw = new Raw(first.url);
    const token = await raw.token();
    const created = await raw.call("/core/system/user", {
      method: "POST",
      token,
      body: { User: { FirstName: "A", LastName: "First" }, Password: PASSWORD },
    });
    expect(created.status).toBe(200);

    const told: string[] = [];
    const second = startEmulator({
      seed: "empty",
      dataFile,
      onDataFileWait: (holder) => told.push(`${holder.pid} ${holder.command}`),
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(told).toEqual([`${process.pid} egp apply --env local-prod`]);
    // Written after the second one started waiting: it must see this too.
    await raw.call("/core/system/user", {
      method: "POST",
      token,
      body: { User: { FirstName: "B", LastName: "Second" }, Password: PASSWORD },
    });
    await first.close();
    const opened = await second;
    try {
      expect(opened.store.userByName("firsta")).toBeDefined();
      expect(opened.store.userByName("secondb")).toBeDefined();
    } finally {
      await opened.close();
    }
  });

  it("gives up after the wait with an error naming the holder", async () => {
    const dataFile = join(root, "busy.json");
    const first = await startEmulator({ seed: "empty", dataFile, holder: "egp drift --env dev" });
    try {
      await expect(startEmulator({ dataFile, dataFileWaitMs: 200 })).rejects.toThrow(
        `is in use by pid ${process.pid}`,
      );
      await expect(startEmulator({ dataFile, dataFileWaitMs: 200 })).rejects.toThrow("(egp drift --env dev)");
    } finally {
      await first.close();
    }
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
      if (existsSync(`${dataFile}.log`)) copyFileSync(`${dataFile}.log`, `${copy}.log`);
      const reread = await DataFile.open({ file: copy, command: "test", waitMs: 0 });
      const live = JSON.parse(JSON.stringify(emulator.store.data));
      // Made empty by the first read of packages, not by a write (packagesOf); close keeps it.
      expect(live.packages.byId).toEqual({});
      delete live.packages;
      expect(reread.initial).toEqual(live);
      await reread.close();
    } finally {
      await emulator.close();
    }
  });
});
