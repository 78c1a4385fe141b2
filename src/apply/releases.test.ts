import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { localKey } from "../io/local-key.ts";
import { FolderStore, historyKey, Keyring, SignedStore } from "../store/index.ts";
import { firstSnapshot, historyToRollBack, listHistory, publishInstall } from "./history.ts";
import { markRolledBack, type ReleaseRecord, readRelease, releasesDir, writeRelease } from "./releases.ts";
import { startedInstall } from "./started-install.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "egp-releases-"));
  dirs.push(dir);
  return dir;
}

function record(id: string, startedAt: string, snapshot = true): ReleaseRecord {
  return {
    formatVersion: 1,
    id,
    environment: "prod",
    sourceEnvironment: "dev",
    plan: "p".repeat(16),
    package: { name: "GRC Core", digest: "a".repeat(64) },
    snapshot: snapshot
      ? {
          digest: "b".repeat(64),
          takenAt: startedAt,
          objects: [{ guid: "g", type: "Application", name: "Controls", parts: {} }],
        }
      : null,
    created: [],
    startedAt,
    installedAt: null,
    rollbacks: [],
  };
}

const keyring = new Keyring({ localKey: () => localKey({ EGP_STATE_KEY: "k".repeat(40) }) });

async function storeWith(...records: ReleaseRecord[]): Promise<SignedStore> {
  const store = new SignedStore(new FolderStore(join(tempDir(), "store")), keyring);
  for (const r of records) await store.putRecord(historyKey(r.environment, r.id), r);
  return store;
}

describe("the install history in the store", () => {
  it("is listed newest first, and rollback takes the newest unless one is named", async () => {
    const store = await storeWith(
      record("111111111111", "2026-11-01T00:00:00.000Z"),
      record("222222222222", "2026-11-03T00:00:00.000Z"),
      record("333333333333", "2026-11-02T00:00:00.000Z"),
    );
    expect((await listHistory(store, "prod")).map((r) => r.id)).toEqual([
      "222222222222",
      "333333333333",
      "111111111111",
    ]);
    expect((await historyToRollBack(store, "prod")).id).toBe("222222222222");
    expect((await historyToRollBack(store, "prod", "111111111111")).id).toBe("111111111111");
  });

  it("refuses a rollback with a coded one-line error: none recorded, an unknown id, or no snapshot", async () => {
    const empty = await storeWith();
    await expect(historyToRollBack(empty, "prod")).rejects.toThrow(
      expect.objectContaining({
        code: "EGP_NO_RELEASE",
        message: `no install of prod to roll back: the store ${empty.location} has no history of prod`,
      }),
    );
    const store = await storeWith(record("111111111111", "2026-11-01T00:00:00.000Z", false));
    await expect(historyToRollBack(store, "prod", "999999999999")).rejects.toThrow(
      expect.objectContaining({
        code: "EGP_NO_RELEASE",
        message: "no install 999999999999 of prod (known: 111111111111); see 'egp history --env prod'",
      }),
    );
    await expect(historyToRollBack(store, "prod")).rejects.toThrow(
      expect.objectContaining({
        code: "EGP_RELEASE_UNUSABLE",
        message: expect.stringMatching(
          /^install 111111111111 of prod has no snapshot .*, so there is nothing to roll back to$/,
        ),
      }),
    );
  });

  it("says which entry is not a record, rather than skipping it", async () => {
    const root = join(tempDir(), "store");
    const store = new SignedStore(new FolderStore(root), keyring);
    await store.putRecord(
      historyKey("prod", "111111111111"),
      record("111111111111", "2026-11-01T00:00:00.000Z"),
    );
    mkdirSync(join(root, "records", "history", "prod"), { recursive: true });
    writeFileSync(join(root, "records", "history", "prod", "torn.json"), '{"formatVersion":1,"id":');
    await expect(historyToRollBack(store, "prod")).rejects.toThrow(
      `history/prod/torn in the store ${root} is not JSON`,
    );

    const other = await storeWith();
    await other.putRecord(historyKey("prod", "222222222222"), {
      ...record("222222222222", "2026-11-01T00:00:00.000Z"),
      id: "not-an-id",
    });
    await expect(historyToRollBack(other, "prod")).rejects.toThrow(
      expect.objectContaining({
        code: "EGP_RELEASE_UNUSABLE",
        message:
          "history/prod/222222222222 in the store is not an install record (id: expected 12 lower-case hex characters)",
      }),
    );
  });

  it("keeps each rollback that installed the snapshot", async () => {
    const stateDir = tempDir();
    const store = await storeWith();
    const installed = record("111111111111", "2026-11-01T00:00:00.000Z", false);
    writeRelease(stateDir, installed);
    await publishInstall(store, stateDir, installed);
    const marked = markRolledBack(
      stateDir,
      "prod",
      "111111111111",
      "q".repeat(16),
      "2026-11-05T00:00:00.000Z",
    );
    if (!marked) throw new Error("the local record is gone");
    await publishInstall(store, stateDir, marked);
    expect((await listHistory(store, "prod"))[0]?.rollbacks).toEqual([
      { plan: "q".repeat(16), at: "2026-11-05T00:00:00.000Z" },
    ]);
  });
});

describe("install records that rollback believes", () => {
  it("refuses a newer record nobody signed, or one whose content changed after it was signed", async () => {
    const store = await storeWith(record("111111111111", "2026-11-01T00:00:00.000Z"));
    const forged = { ...record("222222222222", "2026-11-09T00:00:00.000Z"), snapshot: null };
    await store.inner.putRecord(historyKey("prod", "222222222222"), {
      ...forged,
      snapshot: { digest: "c".repeat(64), takenAt: forged.startedAt, objects: [] },
    });
    await expect(historyToRollBack(store, "prod")).rejects.toThrow(
      expect.objectContaining({
        code: "EGP_RECORD_UNTRUSTED",
        message: expect.stringMatching(
          /^install 222222222222 of prod in the store .* is not used: it is not signed;/,
        ),
      }),
    );
    expect((await listHistory(store, "prod")).map((r) => r.id)).toEqual(["111111111111"]);

    const signed = (await store.getRecord(historyKey("prod", "111111111111"))) as Record<string, unknown>;
    await store.inner.putRecord(historyKey("prod", "111111111111"), {
      ...signed,
      startedAt: "2026-11-10T00:00:00.000Z",
    });
    await expect(historyToRollBack(store, "prod")).rejects.toThrow(
      /its signature does not match its content/,
    );
  });

  it("does not believe a record signed with another user's local key, and says a shared store needs a key", async () => {
    const store = await storeWith(record("111111111111", "2026-11-01T00:00:00.000Z"));
    const elsewhere = new SignedStore(
      store.inner,
      new Keyring({ localKey: () => localKey({ EGP_STATE_KEY: "o".repeat(40) }) }),
    );
    await expect(historyToRollBack(elsewhere, "prod")).rejects.toThrow(
      /signed with another machine's local key \(a shared store needs EGP_SIGNING_KEY and releases.trustedKeys\)/,
    );
  });
});

describe("release records (the local copy in .egp/releases)", () => {
  it("say which file is not a record, rather than reading past it", () => {
    const dir = tempDir();
    mkdirSync(releasesDir(dir, "prod"), { recursive: true, mode: 0o700 });
    const file = join(releasesDir(dir, "prod"), "111111111111.json");
    writeFileSync(file, '{"formatVersion":1,"id":', { mode: 0o600 });
    expect(() => readRelease(dir, "prod", "111111111111")).toThrow(
      `${file} is not an install record (not JSON)`,
    );
  });

  it("keep each rollback that installed the snapshot", () => {
    const dir = tempDir();
    writeRelease(dir, record("111111111111", "2026-11-01T00:00:00.000Z"));
    markRolledBack(dir, "prod", "111111111111", "q".repeat(16), "2026-11-05T00:00:00.000Z");
    expect(readRelease(dir, "prod", "111111111111")?.rollbacks).toEqual([
      { plan: "q".repeat(16), at: "2026-11-05T00:00:00.000Z" },
    ]);
  });
});

describe("the snapshot a retried install records", () => {
  const at = (day: number) => `2026-11-0${day}T00:00:00.000Z`;
  const withSnapshot = (id: string, day: number, snapshot: string, digest = "a".repeat(64)) => {
    const r = record(id, at(day));
    return {
      ...r,
      package: { ...r.package, digest },
      snapshot: r.snapshot ? { ...r.snapshot, digest: snapshot.repeat(64) } : null,
    };
  };

  it("is the one taken before the first install of the same bytes, whatever retries followed", () => {
    const history = [withSnapshot("333333333333", 3, "e"), withSnapshot("222222222222", 2, "d")];
    expect(firstSnapshot(history, "GRC Core", "a".repeat(64))?.digest).toBe("d".repeat(64));
  });

  it("is the new one once the release was rolled back or superseded by other bytes", () => {
    const rolledBack = { ...withSnapshot("222222222222", 2, "d"), rollbacks: [{ plan: "x", at: at(3) }] };
    expect(firstSnapshot([rolledBack], "GRC Core", "a".repeat(64))).toBeUndefined();
    const superseded = [
      withSnapshot("333333333333", 3, "e", "f".repeat(64)),
      withSnapshot("222222222222", 2, "d"),
    ];
    expect(firstSnapshot(superseded, "GRC Core", "a".repeat(64))).toBeUndefined();
    expect(firstSnapshot([withSnapshot("222222222222", 2, "d")], "Other", "a".repeat(64))).toBeUndefined();
  });

  it("counts an install asked for within the job time and never seen done as possibly running", () => {
    const started = record("111111111111", "2026-11-01T00:00:00.000Z");
    const t0 = Date.parse(started.startedAt);
    expect(startedInstall([started], 60_000, t0 + 1_000)?.id).toBe("111111111111");
    expect(startedInstall([started], 60_000, t0 + 61_000)).toBeUndefined();
    expect(
      startedInstall([{ ...started, installedAt: started.startedAt }], 60_000, t0 + 1_000),
    ).toBeUndefined();
  });
});
