import type { PlatformClient } from "../../client/client.ts";
import type { DesiredState } from "../../manifest/index.ts";
import type { InstanceReads, SharedReads } from "../shared-reads.ts";

export interface ReadLiveOptions {
  /**
   * Called once every request of the read is answered, before the digests are made of it: a caller
   * done with the instances (a plan) logs out while the rest is computed.
   */
  afterReads?: () => void;
  /** The repository's root, where files the manifests name (a record's attachments) are read. */
  dir?: string;
  /** Client of the environment packages come from; needed when the manifests name packages. */
  source?: PlatformClient;
  /**
   * `managed` (default) reads contacts and group memberships only when a manifest manages them:
   * each of those reads returns every user of the instance. `all` reads them anyway (export).
   */
  scope?: "managed" | "all";
  /** The reads started before the manifests were loaded (`startEarlyReads`), used instead of new ones. */
  early?: EarlyReads;
  /**
   * Reads started from a hint before the manifests were loaded, by part (`startPackagesAhead`): a
   * kind uses one only when it is for what the manifests ask, and reads anew otherwise.
   */
  ahead?: ReadonlyMap<string, unknown>;
  /**
   * Read every kind, managed or not: a plan with `--allow-delete` prunes every kind it reads.
   * By default a kind no document manages and no PrunePolicy names is not read (`LiveKind.needed`).
   */
  everyKind?: boolean;
  /**
   * Catalogues, versions and trees read earlier in the run, by environment (shared-reads.ts): a
   * source shared by several plans, an apply's plans and steps. Used and added to.
   */
  shared?: SharedReads;
  /**
   * Read only the objects the manifests manage, where a kind can (`EarlyRead.managed`): for a
   * command that counts drift and never lists unmanaged objects (status). Such a kind's early read
   * is not started, since it waits for the manifests' names.
   */
  managedOnly?: boolean;
  /**
   * The kinds' live reads (a kinds value's `live`), in the order they start; egp's own by default.
   * An `early` map must have been started with the same list.
   */
  kinds?: readonly AnyLiveKind[];
  /**
   * A read-only view's: a kind whose read fails (and that has a part for "not read",
   * `Needed.empty` or `LiveKind.unread`) is told here and taken as not read, so that the other kinds are still compared.
   */
  unreadable?: (kind: AnyLiveKind, error: unknown) => void;
}

/** A kind's live read with its state type hidden, so that reads of different kinds fit in one list. */
export interface AnyLiveKind {
  part: string;
  label: string;
  early?: EarlyRead<unknown>;
  needed?: Needed<unknown>;
  unread?: unknown;
  read(context: ReadContext): Promise<unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: the state type differs per kind; each kind is typed where it is defined.
  digest(state: any): string;
}

/**
 * The reads of the target that every plan makes whatever the manifests say, started before the
 * manifests are loaded (`startEarlyReads`), by the part of the kind that declares each.
 */
export type EarlyReads = ReadonlyMap<string, Promise<unknown>>;

/** A kind's read that does not depend on the manifests, so it can start before they are loaded. */
export interface EarlyRead<T> {
  /** The plan kind whose targets narrow it (`--target User/jdoe`), when the interface can narrow it. */
  narrowedBy?: string;
  /**
   * Started only when a manifest's text names one of these document kinds (and never without
   * manifests to test): a read only their documents need.
   */
  kinds?: readonly string[];
  /**
   * Starts it; `keys`, when given, are the only objects (by exact key) the plan needs; `reads`,
   * the run's earlier reads of the instance, where it may take one from them.
   */
  start(client: PlatformClient, keys: readonly string[] | undefined, reads?: InstanceReads): Promise<T>;
  /**
   * The keys of the objects the manifests manage, when a run that reads only those
   * (`ReadLiveOptions.managedOnly`) may narrow the read to them; undefined when every object is
   * needed (something prunes the kind).
   */
  managed?: (desired: DesiredState) => readonly string[] | undefined;
}

/** What a kind's live read gets. */
export interface ReadContext {
  client: PlatformClient;
  desired: DesiredState;
  options: ReadLiveOptions;
  early: EarlyReads;
  /** Read everything of the kind, not only what the manifests manage (export). */
  all: boolean;
}

/**
 * One kind's part of the live state: how it is read, and its digest, by which a saved plan is
 * refused once that part changed (`label` names it in that message).
 */
export interface LiveKind<Part extends string, State, Early = unknown> {
  part: Part;
  label: string;
  early?: EarlyRead<Early>;
  /** When the part is read only for manifests that need it; absent: always read. */
  needed?: Needed<State>;
  /** The part of a kind always read, when a view could not read it (`ReadLiveOptions.unreadable`). */
  unread?: State;
  read(context: ReadContext): Promise<State>;
  digest(state: State): string;
}

/** Keeps a kind's part name and state type literal, for the registry to derive the live state from. */
export function liveKind<const Part extends string, State, Early = unknown>(
  kind: LiveKind<Part, State, Early>,
): LiveKind<Part, State, Early> {
  return kind;
}

/**
 * A kind's early read: the one `startEarlyReads` started, or a new one (a caller that started
 * none). Any kind may use another's (users are read once, whoever needs them).
 */
export function earlyRead<T>(context: ReadContext, part: string, early: EarlyRead<T>): Promise<T> {
  // Only `early.start` puts a promise under `part` (startEarlyReads): its type is T.
  const started = context.early.get(part) as Promise<T> | undefined;
  return (
    started ??
    early.start(context.client, undefined, context.options.shared?.of(context.desired.environment.name))
  );
}

/**
 * A part that only some manifests need: users, for instance, are 10,000 rows nobody asked about
 * when the repository holds only a Package. Export and `--allow-delete` read it anyway.
 */
export interface Needed<State> {
  /**
   * The document kinds whose presence may need it: the early read starts only when a manifest's
   * text names one of them (a cheap test before parsing; the decision is `of`, once loaded).
   */
  kinds: readonly string[];
  of(desired: DesiredState): boolean;
  /** The part when it is not read. */
  empty: State;
}

/** Whether the repository's PrunePolicy names a prunable kind, by its plural: a choice or an exclusion. */
export function pruneNames(desired: DesiredState, plural: "users" | "securityParameters"): boolean {
  const { prune } = desired;
  if (prune.source === null) return false;
  return prune[plural] !== "ignore" || prune.exclude[plural].length > 0;
}

/** Whether a document manages `kind`: one of its documents, or one saying `ensure: absent` of it. */
export function managesKind(desired: DesiredState, kind: string, documents: readonly unknown[]): boolean {
  return documents.length > 0 || desired.absent.some((document) => document.kind === kind);
}
