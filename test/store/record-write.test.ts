import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FolderStore } from "../../src/store/index.ts";
import { MAX_RECORD_BYTES, parseRecord } from "../../src/store/record-json.ts";

/*
 * Records are read as plain JSON of bounded size and depth, and a create-once record appears under
 * its name only whole: a write that fails half-way (a full disk, a file size limit) leaves nothing there.
 */

const ROOT = join(import.meta.dirname, "..", "..");

/** Runs a create-once write of a 100 KB record in a child limited to 1 KiB files; its output. */
function writeUnderLimit(store: string): Promise<string> {
  const script = join(mkdtempSync(join(tmpdir(), "egp-write-")), "write.ts");
  writeFileSync(
    script,
    `import { FolderStore } from ${JSON.stringify(join(ROOT, "src/store/index.ts"))};
const store = new FolderStore(${JSON.stringify(store)});
await store.putRecord("audit/000000000001", { text: "x".repeat(100_000) }, { createOnly: true })
  .then(() => console.log("written"), (error) => console.log(error.code));
`,
  );
  return new Promise((resolve, reject) =>
    execFile("bash", ["-c", 'ulimit -f 1; exec "$0" "$1"', process.execPath, script], (error, stdout) =>
      error ? reject(error) : resolve(stdout.trim()),
    ),
  );
}

describe("store records: plain, bounded, whole", () => {
  it("leaves no half record under its name when the write fails", async () => {
    const root = join(mkdtempSync(join(tmpdir(), "egp-store-")), "store");
    expect(await writeUnderLimit(root)).toBe("EFBIG");
    expect(readdirSync(join(root, "records", "audit"))).toEqual([]);
    // The name is still free: the next writer takes it.
    const store = new FolderStore(root);
    await store.putRecord("audit/000000000001", { ok: true }, { createOnly: true });
    expect(await store.getRecord("audit/000000000001")).toEqual({ ok: true });
    await expect(store.putRecord("audit/000000000001", { ok: false }, { createOnly: true })).rejects.toThrow(
      "audit/000000000001 already exists",
    );
  });

  it("names an empty record, a deep one and an oversized one, without walking them", async () => {
    const root = join(mkdtempSync(join(tmpdir(), "egp-store-")), "store");
    const store = new FolderStore(root);
    await mkdir(join(root, "records", "audit"), { recursive: true });
    const at = (n: number) => join(root, "records", "audit", `00000000000${n}.json`);
    await writeFile(at(1), "");
    await writeFile(at(2), `${"[".repeat(200_000)}${"]".repeat(200_000)}`);
    await writeFile(at(3), `"${"x".repeat(MAX_RECORD_BYTES)}"`);
    await expect(store.getRecord("audit/000000000001")).rejects.toThrow("audit/000000000001 in the store");
    await expect(store.getRecord("audit/000000000001")).rejects.toThrow(
      "is empty (a write that never finished)",
    );
    await expect(store.getRecord("audit/000000000002")).rejects.toThrow("nests deeper than 64 levels");
    await expect(store.getRecord("audit/000000000003")).rejects.toThrow("is larger than 4 MiB");
  });

  it("counts depth outside strings only", () => {
    const deepInString = JSON.stringify({ text: "[".repeat(1000) });
    expect(parseRecord(deepInString, "k", "s")).toEqual({ text: "[".repeat(1000) });
    const escaped = JSON.stringify({ text: '\\"[[[' });
    expect(parseRecord(escaped, "k", "s")).toEqual({ text: '\\"[[[' });
    const at64 = `${"[".repeat(64)}${"]".repeat(64)}`;
    expect(() => parseRecord(at64, "k", "s")).not.toThrow();
    expect(() => parseRecord(`[${at64}]`, "k", "s")).toThrow("nests deeper than 64 levels");
  });
});
