import { createHash, randomBytes } from "node:crypto";
import { renameSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import type { Contact, SecurityParameter, Task, User } from "../wire/index.ts";

/*
 * The emulator's whole state. `data` is plain JSON, so that `--data FILE` can snapshot it as is.
 * Sessions live beside it and are never persisted: a restart ends every session, as on a real
 * instance, and keeps every other fact.
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
  /** Where to persist snapshots; writes are atomic (temp file + rename). */
  dataFile?: string;
}

export class Store {
  data: StoreData;
  readonly sessions = new Map<string, Session>();
  readonly now: () => number;
  private readonly dataFile: string | undefined;
  private flushScheduled = false;
  private flushing: Promise<void> = Promise.resolve();

  constructor(data: StoreData, options: StoreOptions = {}) {
    this.data = data;
    this.now = options.clock ?? Date.now;
    this.dataFile = options.dataFile;
  }

  nextId(counter: string): number {
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

  /** Call after every change; snapshots are coalesced so a burst of writes costs one file write. */
  changed(): void {
    if (!this.dataFile || this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushing = this.flushing.then(() => this.writeSnapshot()).catch(() => undefined);
    });
  }

  private async writeSnapshot(): Promise<void> {
    if (!this.dataFile) return;
    const temp = `${this.dataFile}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(this.data));
    await rename(temp, this.dataFile);
  }

  /** Waits for pending snapshots, then writes the final one synchronously. */
  async flush(): Promise<void> {
    await this.flushing;
    if (!this.dataFile) return;
    const temp = `${this.dataFile}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.data));
    renameSync(temp, this.dataFile);
  }
}
