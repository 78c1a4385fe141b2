import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReleaseStore } from "../../src/store/index.ts";

/** One backend under test: a fresh, empty store, and a way to change a stored blob's bytes behind its back. */
export interface Backend {
  store: ReleaseStore;
  alter(digest: string, bytes: string): void;
}

/** The behaviours every ReleaseStore has, whatever holds it. */
export function storeContract(name: string, fresh: () => Promise<Backend>): void {
  const scratch = () => mkdtempSync(join(tmpdir(), "egp-store-files-"));

  describe(`${name}: the release store's contract`, () => {
    it("keeps a file by its sha256 and gives the same bytes back", async () => {
      const { store } = await fresh();
      const dir = scratch();
      writeFileSync(join(dir, "a.zip"), "package bytes");
      const { digest, size } = await store.putFile(join(dir, "a.zip"));
      expect(digest).toBe(createHash("sha256").update("package bytes").digest("hex"));
      expect(size).toBe(13);
      expect(await store.hasFile(digest)).toBe(true);
      expect(await store.hasFile("1".repeat(64))).toBe(false);
      expect(await store.putFile(join(dir, "a.zip"))).toEqual({ digest, size });
      await store.getFile(digest, join(dir, "out", "b.zip"));
      expect(readFileSync(join(dir, "out", "b.zip"), "utf8")).toBe("package bytes");
    });

    it("refuses a file altered in the store, and leaves nothing at the target", async () => {
      const { store, alter } = await fresh();
      const dir = scratch();
      // Bytes of their own: a registry keeps one copy of a blob for all its repositories.
      writeFileSync(join(dir, "a.zip"), "bytes altered in the store");
      const { digest } = await store.putFile(join(dir, "a.zip"));
      alter(digest, "other bytes!!");
      await expect(store.getFile(digest, join(dir, "b.zip"))).rejects.toThrow(/altered/);
      expect(() => readFileSync(join(dir, "b.zip"))).toThrow(/ENOENT/);
    });

    it("refuses a record nested deeper than a record egp writes, by its key", async () => {
      const { store } = await fresh();
      let deep: unknown = "bottom";
      for (let depth = 0; depth < 100; depth += 1) deep = [deep];
      await store.putRecord("audit/000000000001", { deep });
      await expect(store.getRecord("audit/000000000001")).rejects.toThrow(
        /^audit\/000000000001 in the store .* nests deeper than 64 levels: not a record egp wrote$/,
      );
    });

    it("says when a file is not there", async () => {
      const { store } = await fresh();
      await expect(store.getFile("0".repeat(64), join(scratch(), "b.zip"))).rejects.toThrow(
        /no file sha256:0{64}/,
      );
    });

    it("keeps records by key, lists them, and refuses a created-once key twice", async () => {
      const { store } = await fresh();
      await store.putRecord("releases/r1", { name: "r1" }, { createOnly: true });
      await store.putRecord("history/prod/0a1b2c3d4e5f", { id: 1 });
      await store.putRecord("history/prod/0a1b2c3d4e60", { id: 2 });
      await store.putRecord("history/production/0a1b2c3d4e61", { id: 3 });
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

    it("replaces a record that is not created once", async () => {
      const { store } = await fresh();
      await store.putRecord("snapshots/prod/latest", { n: 1 });
      await store.putRecord("snapshots/prod/latest", { n: 2 });
      expect(await store.getRecord("snapshots/prod/latest")).toEqual({ n: 2 });
    });

    it("keeps a record that refers to stored files", async () => {
      const { store } = await fresh();
      const dir = scratch();
      writeFileSync(join(dir, "a.zip"), "package a");
      const { digest } = await store.putFile(join(dir, "a.zip"));
      await store.putRecord("releases/2026.11.1", { files: [digest] }, { createOnly: true, blobs: [digest] });
      expect(await store.getRecord("releases/2026.11.1")).toEqual({ files: [digest] });
    });

    it("refuses a key that could climb out of the store", async () => {
      const { store } = await fresh();
      await expect(store.putRecord("../x", {})).rejects.toThrow(/not a store key/);
      await expect(store.getRecord("releases/A")).rejects.toThrow(/not a store key/);
    });
  });
}
