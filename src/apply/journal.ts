import {
  closeSync,
  constants,
  fsync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  writeSync,
} from "node:fs";
import { basename, join } from "node:path";
import { EgpError } from "../errors/index.ts";
import { type LocalKey, localKey } from "../io/local-key.ts";
import { assertPrivateFile, PRIVATE_FILE_MODE, privateDir } from "../io/private-dir.ts";
import { isTracked } from "../io/tracked.ts";
import {
  BUILT_IN_STEPS,
  type Plan,
  PlanFileError,
  readPlanFile,
  type StepKinds,
  writePlanFile,
} from "../plan/index.ts";
import type { StepFailure } from "./errors.ts";

/*
 * The journal of one apply: `.egp/journal/<env>/<plan-id>.jsonl`. Its first line holds the plan
 * (which holds no secret); then each step's start and end, with the outputs later steps need
 * (package ids, artifact digests). Every line is flushed to disk before the step goes on, so that
 * after a crash `apply` resumes where it stopped instead of repeating what was done.
 */

export type JournalEntry =
  | { type: "plan"; at: string; plan: Plan }
  /** `origin`: the plan that first started the step, when it was carried over from a superseded run. */
  | { type: "start"; at: string; step: string; origin?: string }
  | { type: "done"; at: string; step: string; output: Record<string, unknown>; origin?: string }
  /** `error`: a string in journals written before failures had codes. */
  | { type: "failed"; at: string; step: string; error: StepFailure | string }
  | { type: "complete"; at: string; ok: boolean }
  /** An interrupted run that will never be resumed: another plan replaced it, or a user discarded it. */
  | { type: "closed"; at: string; reason: "superseded" | "discarded"; by?: string };

export interface JournalState {
  plan: Plan;
  done: Map<string, Record<string, unknown>>;
  /** Steps that started and have no end: they may or may not have happened. */
  interrupted: Set<string>;
  /** Steps carried over from a superseded plan, with the plan that first ran them. */
  origins: Map<string, string>;
  /** Completed, or closed as superseded or discarded: nothing to resume. */
  complete: boolean;
  /** When the run started (its plan line was written). */
  startedAt: string;
}

/** A journal that was never closed and whose plan can't be read: it can be neither resumed nor superseded. */
export class JournalUnreadableError extends EgpError {
  readonly file: string;
  constructor(file: string, reason: string) {
    super("EGP_JOURNAL_UNREADABLE", `${file}: egp can't read this apply journal (${reason})`);
    this.name = "JournalUnreadableError";
    this.file = file;
  }
}

/*
 * Every line ends with an HMAC, under the user's local key (docs/security.md), of the line before
 * it and of the run it belongs to: a journal that came with the repository, was written by hand or
 * on another machine, or had a line moved from another run, fails the check and is refused whole,
 * never resumed. One that git tracks is refused whatever its seals.
 */
const SEAL = /,"seal":"([0-9a-f]{64})"\}$/;
const SEAL_PURPOSE = "egp journal";

/** A journal line: the entry's JSON with its seal as the last field. */
export function sealedLine(entry: object, run: string, key: LocalKey = localKey()): string {
  const json = JSON.stringify(entry);
  const seal = key.seal(json, `${SEAL_PURPOSE}\0${run}`);
  return `${json.slice(0, -1)},"seal":"${seal}"}`;
}

/** The entry's JSON of a sealed line, when its seal is this user's for this run. */
function unsealedLine(line: string, run: string, key: LocalKey): string | undefined {
  const match = SEAL.exec(line);
  if (!match?.[1]) return undefined;
  const json = `${line.slice(0, match.index)}}`;
  return key.check(json, match[1], `${SEAL_PURPOSE}\0${run}`) ? json : undefined;
}

const NOT_OURS =
  "it was not written by egp for this user on this machine (its seals do not match the local key; see docs/security.md)";
const TRACKED = "git tracks it: egp resumes only the journals it wrote here; remove it from the repository";

/** Appends, creating the file 0600, and never through a link (O_NOFOLLOW where the system has it). */
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

/** Flushes an open file to disk; tests pass one that counts. */
export type SyncFile = (fd: number) => Promise<void>;

const fsyncFile: SyncFile = (fd) =>
  new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));

export class Journal {
  readonly file: string;
  private readonly syncFile: SyncFile;
  /** Kept open from the first write to close(): one descriptor for every write and fsync. */
  private fd: number | undefined;
  /** The fsync running now. */
  private syncing: Promise<void> | undefined;
  /** The fsync that will start after it, covering every line written until it starts. */
  private next: Promise<void> | undefined;

  /** The state folder the journal is in, to ask git whether it tracks the file. */
  private readonly stateDir: string | undefined;

  private constructor(file: string, syncFile: SyncFile = fsyncFile, stateDir?: string) {
    this.file = file;
    this.syncFile = syncFile;
    this.stateDir = stateDir;
  }

  static folder(stateDir: string, env: string): string {
    return join(stateDir, "journal", env);
  }

  /**
   * Starts the journal of a plan (or reopens it, when it exists); `folder` keeps another command's
   * journals (a rollback's) apart from the applies that `apply --resume` offers. `steps`: the
   * kinds' step ops its plan is read back with (egp's own by default).
   */
  static open(
    stateDir: string,
    plan: Plan,
    options: { syncFile?: SyncFile; folder?: string; steps?: StepKinds } = {},
  ): Journal {
    const folder = options.folder ?? Journal.folder(stateDir, plan.environment);
    privateDir(stateDir, folder);
    const run = Journal.runOf(stateDir, folder, plan.id, options.steps);
    const journal = new Journal(join(folder, `${run}.jsonl`), options.syncFile, stateDir);
    assertPrivateFile(journal.file);
    const fd = openSync(journal.file, APPEND, PRIVATE_FILE_MODE);
    closeSync(fd);
    if (readFileSync(journal.file, "utf8").trim() === "") {
      journal.append({
        type: "plan",
        at: new Date().toISOString(),
        plan: JSON.parse(writePlanFile(plan)) as Plan,
      });
    }
    return journal;
  }

  /**
   * The run of a plan to write to: its latest journal while that is unfinished, else a new one
   * (`<plan-id>.<n>`). The same plan applied again after it completed (a promotion, a rollback,
   * the promotion again) is another run, with a journal and install records of its own.
   */
  private static runOf(stateDir: string, folder: string, planId: string, steps?: StepKinds): string {
    let latest = 0;
    for (const name of readdirSync(folder)) {
      if (name === `${planId}.jsonl`) latest = Math.max(latest, 1);
      const run = name.startsWith(`${planId}.`) ? /^\.(\d+)\.jsonl$/.exec(name.slice(planId.length)) : null;
      if (run) latest = Math.max(latest, Number(run[1]));
    }
    if (latest === 0) return planId;
    const name = latest === 1 ? planId : `${planId}.${latest}`;
    const state = new Journal(join(folder, `${name}.jsonl`), undefined, stateDir).read(steps);
    if (state === undefined || !state.complete) return name;
    return `${planId}.${latest + 1}`;
  }

  /** The run's name: the plan id, and `.<n>` from its second run on. */
  get run(): string {
    return basename(this.file, ".jsonl");
  }

  /** The most recent journal of an environment that never completed: a crashed apply. */
  static unfinished(
    stateDir: string,
    env: string,
    steps?: StepKinds,
  ): { journal: Journal; state: JournalState } | undefined {
    return Journal.unfinishedIn(stateDir, Journal.folder(stateDir, env), steps);
  }

  /** The most recent journal in a folder (under the state folder) that never completed. */
  static unfinishedIn(
    stateDir: string,
    folder: string,
    steps?: StepKinds,
  ): { journal: Journal; state: JournalState } | undefined {
    if (!privateDir(stateDir, folder, { create: false })) return undefined;
    let files: string[];
    try {
      files = readdirSync(folder).filter((name) => name.endsWith(".jsonl"));
    } catch {
      return undefined;
    }
    const candidates = files
      .map((name) => new Journal(join(folder, name), undefined, stateDir))
      .map((journal) => ({ journal, state: journal.read(steps) }))
      .filter(
        (entry): entry is { journal: Journal; state: JournalState } =>
          entry.state !== undefined && !entry.state.complete,
      )
      .sort((a, b) => (a.state.plan.createdAt < b.state.plan.createdAt ? 1 : -1));
    return candidates[0];
  }

  /**
   * Closes, as discarded, the journals of a folder that were never closed and can't be read, so
   * that they stop blocking applies; returns their files.
   */
  static discardUnreadable(stateDir: string, folder: string, steps?: StepKinds): string[] {
    if (!privateDir(stateDir, folder, { create: false })) return [];
    let files: string[];
    try {
      files = readdirSync(folder).filter((name) => name.endsWith(".jsonl"));
    } catch {
      return [];
    }
    const discarded: string[] = [];
    for (const name of files) {
      const journal = new Journal(join(folder, name), undefined, stateDir);
      try {
        journal.read(steps);
      } catch (error) {
        if (!(error instanceof JournalUnreadableError)) throw error;
        // A tracked journal stays refused however it is closed: only removing it from git helps.
        if (journal.tracked()) continue;
        journal.close("discarded");
        discarded.push(journal.file);
      }
    }
    return discarded;
  }

  /** Whether git tracks the file: it came with the repository. */
  tracked(): boolean {
    return this.stateDir !== undefined && isTracked(this.stateDir, this.file);
  }

  /** Ends an interrupted run that will not be resumed, so that no later apply offers it again. */
  close(reason: "superseded" | "discarded", by?: string): void {
    this.append({ type: "closed", at: new Date().toISOString(), reason, ...(by ? { by } : {}) });
    this.closeFile();
  }

  /** Writes an entry and flushes it to disk before returning. */
  append(entry: JournalEntry): void {
    fsyncSync(this.write(entry));
  }

  /**
   * Writes an entry now and resolves once it is on disk. Entries written while an fsync runs share
   * the next one: steps running side by side no longer each block the event loop on their own
   * fsync, which had made the journal, not the platform, the limit of an apply's throughput.
   */
  record(entry: JournalEntry): Promise<void> {
    const fd = this.write(entry);
    if (this.next) return this.next;
    const next = (this.syncing ?? Promise.resolve()).then(() => {
      // From here on, a written line needs the fsync after this one.
      this.next = undefined;
      const syncing = this.syncFile(fd);
      this.syncing = syncing;
      return syncing.finally(() => {
        if (this.syncing === syncing) this.syncing = undefined;
      });
    });
    this.next = next;
    return next;
  }

  /** Closes the descriptor, once every recorded entry is on disk (a later write opens it again). */
  async flush(): Promise<void> {
    await Promise.allSettled([this.syncing, this.next]);
    this.closeFile();
  }

  private closeFile(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** Appends one line; returns the descriptor. */
  private write(entry: JournalEntry): number {
    this.fd ??= openSync(this.file, APPEND, PRIVATE_FILE_MODE);
    writeSync(this.fd, `${sealedLine(entry, this.run)}\n`);
    return this.fd;
  }

  /**
   * Reads the journal; a torn last line (a crash mid-write) is ignored. A journal that was never
   * closed and whose plan can't be read throws `JournalUnreadableError`; a closed one is nothing
   * to resume, whatever its plan. `steps`: the kinds' step ops its plan is read with.
   */
  read(steps: StepKinds = BUILT_IN_STEPS): JournalState | undefined {
    assertPrivateFile(this.file);
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      return undefined;
    }
    if (this.tracked()) throw new JournalUnreadableError(this.file, TRACKED);
    const key = localKey();
    let foreign = false;
    let planned: { plan: unknown; at: string } | undefined;
    const done = new Map<string, Record<string, unknown>>();
    const started = new Set<string>();
    const origins = new Map<string, string>();
    let complete = false;
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch {
        continue;
      }
      const json = unsealedLine(line, this.run, key);
      if (json === undefined) {
        foreign = true;
        continue;
      }
      entry = JSON.parse(json) as JournalEntry;
      if (typeof entry !== "object" || entry === null) continue;
      if (entry.type === "plan") planned = entry;
      else if (entry.type === "start") {
        started.add(entry.step);
        if (entry.origin) origins.set(entry.step, entry.origin);
      } else if (entry.type === "done") {
        done.set(entry.step, entry.output);
        started.delete(entry.step);
        if (entry.origin) origins.set(entry.step, entry.origin);
      } else if (entry.type === "failed") started.delete(entry.step);
      else if (entry.type === "complete" || entry.type === "closed") complete = true;
    }
    // Closed by egp here (a discarded forgery): nothing to resume, whatever else it holds.
    if (foreign && !complete) throw new JournalUnreadableError(this.file, NOT_OURS);
    if (!planned) return undefined;
    let plan: Plan;
    try {
      plan = readPlanFile(JSON.stringify(planned.plan), "its plan", steps);
    } catch (error) {
      if (complete) return undefined;
      if (error instanceof PlanFileError) throw new JournalUnreadableError(this.file, error.message);
      throw error;
    }
    return { plan, done, interrupted: started, origins, complete, startedAt: planned.at };
  }
}
