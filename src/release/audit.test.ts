import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localKey } from "../io/local-key.ts";
import { FolderStore } from "../store/index.ts";
import { Keyring, SignedStore } from "../store/signing.ts";
import { type AuditEntry, appendAudit, auditKey } from "./audit.ts";
import { readAudit } from "./audit-chain.ts";

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

/** A folder store whose records are signed with `signer` (the user's local key). */
const signedWith = (root: string, signer = key) =>
  new SignedStore(new FolderStore(root), new Keyring({ localKey: () => signer }));

async function store(): Promise<{ store: SignedStore; root: string }> {
  const root = await mkdtemp(join(tmpdir(), "egp-audit-"));
  return { store: signedWith(root), root };
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
    const first = await appendAudit(s, entry());
    const second = await appendAudit(s, entry({ actor: "bob" }));
    expect([first.sequence, second.sequence]).toEqual([1, 2]);
    expect(first.previous).toBeNull();
    expect(second.previous).toMatch(/^[0-9a-f]{64}$/);
    const chain = await readAudit(s);
    expect(chain.broken).toBeUndefined();
    expect(chain.records.map((r) => r.actor)).toEqual(["alice", "bob"]);
  });

  it("gives two writers at once distinct places", async () => {
    const { store: s } = await store();
    await Promise.all([1, 2, 3].map((n) => appendAudit(s, entry({ actor: `w${n}` }))));
    const chain = await readAudit(s);
    expect(chain.broken).toBeUndefined();
    expect(chain.records.map((r) => r.sequence)).toEqual([1, 2, 3]);
  });

  it("names the first broken link: an edited record, a removed one, another key's", async () => {
    const { store: s, root } = await store();
    for (const actor of ["a", "b", "c"]) await appendAudit(s, entry({ actor }));
    await edit(root, 2, (r) => {
      r.actor = "mallory";
    });
    expect((await readAudit(s)).broken).toEqual({
      key: auditKey(2),
      why: "its signature does not match its content",
    });
    await edit(root, 2, (r) => {
      r.actor = "b";
    });
    // Another machine's key is not a break: the records cannot be verified there, and are counted.
    const elsewhere = await readAudit(signedWith(root, otherKey));
    expect(elsewhere.broken).toBeUndefined();
    expect(elsewhere.records).toEqual([]);
    expect(elsewhere.unverifiable.count).toBe(3);
    expect(elsewhere.unverifiable.why[0]).toContain("another machine's local key");
  });

  it("a record replaced by another validly sealed one breaks the next link", async () => {
    const { store: s, root } = await store();
    for (const actor of ["a", "b", "c"]) await appendAudit(s, entry({ actor }));
    const { store: scratch, root: scratchRoot } = await store();
    await appendAudit(scratch, entry({ actor: "mallory" }));
    await writeFile(recordFile(root, 1), await readFile(recordFile(scratchRoot, 1), "utf8"));
    expect((await readAudit(s)).broken).toMatchObject({
      key: auditKey(2),
      why: expect.stringContaining("that record was edited"),
    });
  });

  it("takes a record naming the next audit record as a change being recorded, and one naming a later record as a break", async () => {
    const { store: s } = await store();
    await s.putRecord("releases/r1", { name: "r1", packages: [] });
    expect(await s.getRecord("releases/r1")).toMatchObject({ audit: 1 });
    expect((await readAudit(s)).broken).toBeUndefined();
    await appendAudit(s, entry());
    await s.putRecord("releases/r2", { name: "r2", packages: [], audit: 5 });
    expect((await readAudit(s)).broken).toEqual({
      key: auditKey(2),
      why: `it and the records after it up to ${auditKey(4)} are missing (releases/r2 names record 5)`,
    });
    // A record no trusted key signed names nothing: anyone who can write to the store could write it.
    await s.inner.putRecord("releases/r2", { name: "r2", packages: [], audit: 5 });
    expect((await readAudit(s)).broken).toBeUndefined();
  });
});
