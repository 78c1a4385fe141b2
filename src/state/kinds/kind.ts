import type { PlatformClient } from "../../client/client.ts";
import type { DesiredState } from "../../manifest/index.ts";
import type { SecurityParameter, User } from "../../wire/index.ts";

export interface ReadLiveOptions {
  /** Client of the environment packages come from; needed when the manifests name packages. */
  source?: PlatformClient;
  /**
   * `managed` (default) reads contacts and group memberships only when a manifest manages them:
   * each of those reads returns every user of the instance. `all` reads them anyway (export).
   */
  scope?: "managed" | "all";
  /** The reads started before the manifests were loaded (`startEarlyReads`), used instead of new ones. */
  early?: EarlyReads;
}

/** The reads of the target that every plan makes whatever the manifests say. */
export interface EarlyReads {
  securityParameters: Promise<SecurityParameter[]>;
  users: Promise<User[]>;
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
export interface LiveKind<Part extends string, State> {
  part: Part;
  label: string;
  read(context: ReadContext): Promise<State>;
  digest(state: State): string;
}

/** Keeps a kind's part name and state type literal, for the registry to derive the live state from. */
export function liveKind<const Part extends string, State>(
  kind: LiveKind<Part, State>,
): LiveKind<Part, State> {
  return kind;
}
