import { createHash, randomBytes } from "node:crypto";
import type { Contact, SecurityParameter, Task, User } from "../wire/index.ts";
import type { StateDb } from "./state-db.ts";

/*
 * The emulator's whole state. `data` is plain JSON, so that `--data FILE` can persist it as is.
 * Sessions live beside it and are never persisted: a restart ends every session, as on a real
 * instance, and keeps every other fact.
 *
 * Durability (`--data`): a request takes the data file's lock when its handler starts (`begin`),
 * reading what other processes committed; routes mutate `data` and call `changed()`; once the turn
 * of the event loop is over, the store commits the turn's changes (src/emulator/state-db.ts), so
 * that the writes of concurrent requests share one commit, and the server answers no request
 * before `settled()` says that what it saw is on disk. A commit that fails (a full disk) puts
 * `data` back to what is on disk and fails every request waiting for it, so that no refused write
 * stays visible.
 */

export interface UserRecord {
  user: User;
  roles: number[];
  groups: number[];
  contacts: Contact[];
  /** salted sha256 of the current password, then of earlier ones (newest first). */
  passwordHashes: string[];
  salt: string;
  failedLogins: number;
  /** epoch ms until which a lockout lasts, or null. */
  lockedUntil: number | null;
}

export interface NamedRecord {
  Id: number;
  Name: string;
}

export interface StoreData {
  format: 1;
  instance: string;
  release: string;
  seed: string;
  counters: Record<string, number>;
  users: Record<string, UserRecord>;
  securityParameters: Record<string, SecurityParameter>;
  roles: Record<string, NamedRecord>;
  groups: Record<string, NamedRecord>;
  tasks: Record<string, Task & { UserId: number }>;
  /** Segments added later keep their state here, under their own key. */
  [segment: string]: unknown;
}

export interface Session {
  token: string;
  userId: number;
  createdAt: number;
  lastSeen: number;
}

export interface StoreOptions {
  clock?: () => number;
  /** Where changes are committed; absent: in memory only. */
  persistence?: StateDb;
}

export class Store {
  data: StoreData;
  readonly sessions = new Map<string, Session>();
  readonly now: () => number;
  private readonly persistence: StateDb | undefined;
  /** Counts of `changed()` calls: made, committed, and on disk (synced). */
  private changes = 0;
  private committed = 0;
  private durable = 0;
  /** Set when a sync failed: what is on disk is unknown, so nothing is answered any more. */
  private broken: Error | undefined;
  private scheduled = false;
  /** Top-level keys of `data` changed since the last write; null: any may have. */
  private touched: Set<string> | null = new Set();
  private waiters: { upTo: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  /** Goes up each time a failed write puts `data` back; a request that saw another value is failed. */
  revision = 0;

  constructor(data: StoreData, options: StoreOptions = {}) {
    this.data = data;
    this.now = options.clock ?? Date.now;
    this.persistence = options.persistence;
  }

  nextId(counter: string): number {
    this.touched?.add("counters");
    const next = (this.data.counters[counter] ?? 0) + 1;
    this.data.counters[counter] = next;
    return next;
  }

  isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  // ---- users

  user(id: number): UserRecord | undefined {
    return this.data.users[String(id)];
  }

  userByName(userName: string): UserRecord | undefined {
    const wanted = userName.toLowerCase();
    for (const record of Object.values(this.data.users)) {
      if (record.user.UserName.toLowerCase() === wanted) return record;
    }
    return undefined;
  }

  allUsers(): UserRecord[] {
    return Object.values(this.data.users).sort((a, b) => a.user.Id - b.user.Id);
  }

  hashPassword(salt: string, password: string): string {
    return createHash("sha256").update(salt).update("\0").update(password).digest("hex");
  }

  newSalt(): string {
    return randomBytes(8).toString("hex");
  }

  passwordMatches(record: UserRecord, password: string): boolean {
    return record.passwordHashes[0] === this.hashPassword(record.salt, password);
  }

  // ---- security parameters, roles, groups

  securityParameter(id: number): SecurityParameter | undefined {
    return this.data.securityParameters[String(id)];
  }

  allSecurityParameters(): SecurityParameter[] {
    return Object.values(this.data.securityParameters).sort((a, b) => a.Id - b.Id);
  }

  /** The parameter that governs a user: its SecurityId, else the default one. */
  parameterFor(record: UserRecord): SecurityParameter | undefined {
    return (
      this.securityParameter(record.user.SecurityId) ?? this.allSecurityParameters().find((p) => p.Default)
    );
  }

  role(id: number): NamedRecord | undefined {
    return this.data.roles[String(id)];
  }

  group(id: number): NamedRecord | undefined {
    return this.data.groups[String(id)];
  }

  // ---- sessions

  openSession(userId: number): Session {
    const token = randomBytes(16).toString("hex").toUpperCase();
    const now = this.now();
    const session = { token, userId, createdAt: now, lastSeen: now };
    this.sessions.set(token, session);
    return session;
  }

  endSessionsOf(userId: number): void {
    for (const [token, session] of this.sessions) {
      if (session.userId === userId) this.sessions.delete(token);
    }
  }

  // ---- persistence

  /**
   * Call before a request reads `data` (`--data`): takes the data file's lock for this turn and
   * reads what other processes committed, so that the request sees it and its writes follow them.
   * The lock ends with the turn: work that changes `data` after an await calls it again first, and
   * takes its records anew (another process's commit replaces the segments it changed).
   */
  begin(): void {
    if (!this.persistence) return;
    this.persistence.begin();
    this.data = this.persistence.data as StoreData;
    this.schedule();
  }

  /**
   * Call after every change of `data`; the change is committed with the others of this turn.
   * `segments` names what the change touched: top-level keys of `data` (`tasks`) or entries of
   * one (`users/12`), so that a commit compares those only; without it everything is compared.
   * `nextId` adds `counters` itself.
   */
  changed(...segments: string[]): void {
    if (!this.persistence) return;
    if (segments.length === 0) this.touched = null;
    else for (const segment of segments) this.touched?.add(segment);
    this.changes++;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.commitTurn());
  }

  /** True when every change made so far is on disk. */
  isSettled(): boolean {
    return this.broken === undefined && this.durable >= this.changes;
  }

  /** Resolves once every change made so far is on disk; rejects if it cannot be. */
  settled(): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.durable >= this.changes) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ upTo: this.changes, resolve, reject }));
  }

  /** Commits this turn's changes (ending the turn's transaction), then has them synced. */
  private commitTurn(): void {
    this.scheduled = false;
    const persistence = this.persistence as StateDb;
    if (this.broken) return;
    const upTo = this.changes;
    const touched = this.committed >= upTo ? new Set<string>() : this.touched;
    this.touched = new Set();
    try {
      persistence.commit(touched);
    } catch (error) {
      // Changes made since the last commit sit on top of the refused ones: all go.
      const good = this.committed;
      this.data = persistence.data as StoreData;
      this.revision++;
      this.committed = upTo;
      const failed = this.waiters.filter((w) => w.upTo > good);
      this.waiters = this.waiters.filter((w) => w.upTo <= good);
      for (const waiter of failed) waiter.reject(error as Error);
      this.sync();
      return;
    }
    this.data = persistence.data as StoreData;
    this.committed = upTo;
    this.sync();
  }

  /** Has what is committed synced; syncs may overlap, so that a commit need not wait for another's. */
  private sync(): void {
    const upTo = this.committed;
    if (upTo <= this.durable) return;
    (this.persistence as StateDb).sync().then(
      () => {
        if (upTo <= this.durable) return;
        this.durable = upTo;
        const ready = this.waiters.filter((w) => w.upTo <= upTo);
        this.waiters = this.waiters.filter((w) => w.upTo > upTo);
        for (const waiter of ready) waiter.resolve();
      },
      (error: Error) => {
        this.broken = error;
        const failed = this.waiters;
        this.waiters = [];
        for (const waiter of failed) waiter.reject(error);
      },
    );
  }

  /**
   * Commits what is left and closes the data file. The last comparison of every key (in case a
   * route named too few) is made against what is on disk now: compared with an older read, a
   * segment another process wrote since would be written back as this process last saw it.
   */
  async close(): Promise<void> {
    if (!this.persistence) return;
    try {
      this.begin();
    } catch {
      // The file stayed locked: what this process last read is the best it has.
    }
    this.changed();
    await this.settled().catch(() => undefined);
    this.persistence.close();
  }
}
