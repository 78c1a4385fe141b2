import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localKey } from "../io/local-key.ts";
import { type AuditEntry, appendAudit, auditKey, readAudit } from "./audit.ts";
import { FolderStore } from "./index.ts";

const key = localKey({ EGP_STATE_KEY: "k".repeat(40) });
const otherKey = localKey({ EGP_STATE_KEY: "o".repeat(40) });

const entry = (over: Partial<AuditEntry> = {}): AuditEntry => ({
  action: "apply",
  at: "2026-11-28T10:00:00.000Z",
  actor: "alice",
  runUrl: null,
  environment: "prod",
  instance: { url: "https://grc.example.com", name: "Production" },
  planSha256: "a".repeat(64),
  release: null,
  changes: [{ kind: "User", name: "jdoe", action: "update" }],
  result: "verified",
  failures: [],
  exception: null,
  reason: null,
  ...over,
});

async function store(): Promise<{ store: FolderStore; root: string }> {
  const root = await mkdtemp(join(tmpdir(), "egp-audit-"));
  return { store: new FolderStore(root), root };
}

const recordFile = (root: string, sequence: number) => join(root, "records", `${auditKey(sequence)}.json`);

async function edit(root: string, sequence: number, change: (record: Record<string, unknown>) => void) {
  const file = recordFile(root, sequence);
  const record = JSON.parse(await readFile(file, "utf8"));
  change(record);
  await writeFile(file, JSON.stringify(record));
}

describe("the audit chain", () => {
  it("appends records in order, each naming the one before, and the chain holds", async () => {
    const { store: s } = await store();
    const first = await appendAudit(s, entry(), key);
    const second = await appendAudit(s, entry({ actor: "bob" }), key);
    expect([first.sequence, second.sequence]).toEqual([1, 2]);
    expect(first.previous).toBeNull();
    expect(second.previous).toMatch(/^[0-9a-f]{64}$/);
    const chain = await readAudit(s, key);
    expect(chain.broken).toBeUndefined();
    expect(chain.records.map((r) => r.actor)).toEqual(["alice", "bob"]);
  });

  it("gives two writers at once distinct places", async () => {
    const { store: s } = await store();
    await Promise.all([1, 2, 3].map((n) => appendAudit(s, entry({ actor: `w${n}` }), key)));
    const chain = await readAudit(s, key);
    expect(chain.broken).toBeUndefined();
    expect(chain.records.map((r) => r.sequence)).toEqual([1, 2, 3]);
  });

  it("names the first broken link: an edited record, a removed one, another key's", async () => {
    const { store: s, root } = await store();
    for (const actor of ["a", "b", "c"]) await appendAudit(s, entry({ actor }), key);
    await edit(root, 2, (r) => {
      r.actor = "mallory";
    });
    expect((await readAudit(s, key)).broken).toEqual({
      key: auditKey(2),
      why: "its seal does not match its content (it was edited)",
    });
    expect((await readAudit(s, otherKey)).broken?.why).toContain("which this machine does not hold");
  });

  it("a record replaced by another validly sealed one breaks the next link", async () => {
    const { store: s, root } = await store();
    for (const actor of ["a", "b", "c"]) await appendAudit(s, entry({ actor }), key);
    const { store: scratch, root: scratchRoot } = await store();
    await appendAudit(scratch, entry({ actor: "mallory" }), key);
    await writeFile(recordFile(root, 1), await readFile(recordFile(scratchRoot, 1), "utf8"));
    expect((await readAudit(s, key)).broken).toMatchObject({
      key: auditKey(2),
      why: expect.stringContaining("that record was edited"),
    });
  });
});
