import type { PlatformClient } from "../client/client.ts";
import type { DesiredState } from "../manifest/index.ts";
import { hash } from "./digest.ts";
import { type AnyLiveKind, BUILT_IN_LIVE_KINDS, type LiveParts } from "./kinds/index.ts";
import type { EarlyReads, ReadLiveOptions } from "./kinds/kind.ts";
import type { LiveState } from "./live-state.ts";
import type { InstanceReads } from "./shared-reads.ts";

export type { EarlyReads, ReadLiveOptions };

/*
 * Reads what one environment needs for a plan, with a number of requests that does not grow with
 * the number of users or parameters (LESSONS 7, 8): one get-all per kind, one get-all-contacts,
 * one users-by-group per mapped group, and the metadata trees of the package objects named. An
 * environment without a groups map costs one read of the instance's groups, and one users-by-group
 * per group the manifests name (every group for export).
 */

/**
 * Starts every kind's early read (`LiveKind.early`), so that the instance answers them while this
 * process parses and validates the manifests (for 10,000 users, both take about as long). `keys`
 * narrows a read to the objects a plan targets by exact key, where the kind can (`narrowedBy`).
 * Whoever starts them hands them to `readLiveState`; when the manifests turn out invalid nobody
 * does, and their failures are then dropped rather than left unhandled. `reads`: the run's earlier
 * reads of the instance (shared-reads.ts), which a kind may take its early read from.
 */
export function startEarlyReads(
  client: PlatformClient,
  keys: (kind: string) => readonly string[] | undefined = () => undefined,
  mentioned?: (documentKind: string) => boolean,
  managedOnly = false,
  reads?: InstanceReads,
  kinds: readonly AnyLiveKind[] = BUILT_IN_LIVE_KINDS,
): EarlyReads {
  const early = new Map<string, Promise<unknown>>();
  for (const kind of kinds) {
    if (!kind.early) continue;
    if (managedOnly && kind.early.managed) continue;
    // `mentioned`: whether some manifest may hold a document of that kind (a test of their text).
    if (kind.early.kinds && !(mentioned && kind.early.kinds.some(mentioned))) continue;
    if (mentioned && kind.needed && !kind.needed.kinds.some(mentioned)) continue;
    const narrowed = kind.early.narrowedBy ? keys(kind.early.narrowedBy) : undefined;
    // A read only documents need, for a plan whose targets name none of them.
    if (kind.early.kinds && narrowed?.length === 0) continue;
    const read = kind.early.start(client, narrowed, reads);
    read.catch(() => undefined);
    early.set(kind.part, read);
  }
  return early;
}

export async function readLiveState(
  client: PlatformClient,
  desired: DesiredState,
  options: ReadLiveOptions = {},
): Promise<LiveState> {
  const kinds = options.kinds ?? BUILT_IN_LIVE_KINDS;
  const context = {
    client,
    desired,
    options,
    early: options.early ?? startEarlyReads(client, undefined, undefined, false, undefined, kinds),
    all: options.scope === "all",
  };
  const every = context.all || options.everyKind === true;
  const skipped = kinds.filter((kind) => !every && kind.needed && !kind.needed.of(desired));
  // A plan that needs no read still logs in (and reads the version): it must say whether the
  // instance answers and takes its credentials, not report "No changes" of an instance it never reached.
  const readsNothing =
    kinds.every((kind) => skipped.includes(kind) || !kind.needed) &&
    desired.packages.length === 0 &&
    !desired.release;
  const [parts] = await Promise.all([
    Promise.all(kinds.map((kind) => (skipped.includes(kind) ? kind.needed?.empty : readKind(kind, context)))),
    readsNothing ? client.metadata.version() : undefined,
  ]);
  options.afterReads?.();
  const state: Omit<LiveState, "digest" | "partDigests"> = Object.assign(
    { environment: desired.environment.name },
    ...parts,
  );
  const digests = partDigests(state, kinds);
  const notRead = skipped.map((kind) => kind.label);
  return {
    ...state,
    digest: combine(state.environment, digests),
    partDigests: digests,
    ...(notRead.length > 0 ? { notRead } : {}),
  };
}

/** A kind's part; for a view (`unreadable`), the part "not read" when the read fails and the kind has one. */
function readKind(kind: AnyLiveKind, context: Parameters<AnyLiveKind["read"]>[0]): Promise<unknown> {
  const { unreadable } = context.options;
  const empty = kind.unread ?? kind.needed?.empty;
  if (!unreadable || empty === undefined) return kind.read(context);
  return kind.read(context).catch((error: unknown) => {
    unreadable(kind, error);
    return empty;
  });
}

function partDigests(state: LiveParts, kinds: readonly AnyLiveKind[]): LiveState["partDigests"] {
  return Object.fromEntries(kinds.map((kind) => [kind.part, kind.digest(state)])) as LiveState["partDigests"];
}

function combine(environment: string, parts: LiveState["partDigests"]): string {
  return hash({ environment, parts });
}

/**
 * Digest of what a plan depends on. Volatile fields that change without anyone changing the
 * configuration (last login) are left out, so a saved plan is not refused for them.
 */
export function liveDigest(
  state: Omit<LiveState, "digest" | "partDigests" | "notRead">,
  kinds: readonly AnyLiveKind[] = BUILT_IN_LIVE_KINDS,
): string {
  return combine(state.environment, partDigests(state, kinds));
}
