import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FolderStore } from "../../src/store/index.ts";

function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "egp-store-"));
  return { dir, store: new FolderStore(join(dir, "store")) };
}

describe("FolderStore", () => {
  it("keeps a file by its sha256 and gives the same bytes back", async () => {
    const { dir, store } = fresh();
    writeFileSync(join(dir, "a.zip"), "package bytes");
    const { digest, size } = await store.putFile(join(dir, "a.zip"));
    expect(digest).toBe(createHash("sha256").update("package bytes").digest("hex"));
    expect(size).toBe(13);
    expect(await store.hasFile(digest)).toBe(true);
    await store.getFile(digest, join(dir, "out", "b.zip"));
    expect(readFileSync(join(dir, "out", "b.zip"), "utf8")).toBe("package bytes");
  });

  it("refuses a file altered in the store", async () => {
    const { dir, store } = fresh();
    writeFileSync(join(dir, "a.zip"), "package bytes");
    const { digest } = await store.putFile(join(dir, "a.zip"));
    writeFileSync(join(dir, "store", "blobs", "sha256", digest), "other bytes");
    await expect(store.getFile(digest, join(dir, "b.zip"))).rejects.toThrow(/altered/);
  });

  it("says when a file is not there", async () => {
    const { dir, store } = fresh();
    await expect(store.getFile("0".repeat(64), join(dir, "b.zip"))).rejects.toThrow(/no file sha256:0{64}/);
  });

  it("keeps records by key, lists them, and refuses a created-once key twice", async () => {
    const { store } = fresh();
    await store.putRecord("releases/r1", { name: "r1" }, { createOnly: true });
    await store.putRecord("history/prod/0a1b2c3d4e5f", { id: 1 });
    await store.putRecord("history/prod/0a1b2c3d4e60", { id: 2 });
    await expect(store.putRecord("releases/r1", { name: "again" }, { createOnly: true })).rejects.toThrow(
      /already exists/,
    );
    expect(await store.getRecord("releases/r1")).toEqual({ name: "r1" });
    expect(await store.getRecord("releases/r2")).toBeUndefined();
    expect(await store.listRecords("history/prod")).toEqual([
      "history/prod/0a1b2c3d4e5f",
      "history/prod/0a1b2c3d4e60",
    ]);
    expect(await store.listRecords("history/test")).toEqual([]);
  });

  it("refuses a key that could climb out of the store", async () => {
    const { store } = fresh();
    await expect(store.putRecord("../x", {})).rejects.toThrow(/not a store key/);
  });
});
