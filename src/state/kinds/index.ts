import type { AnyLiveKind, LiveKind } from "./kind.ts";
import { packageLive } from "./package.ts";
import { recordLive } from "./record.ts";
import { securityParameterLive } from "./security-parameter.ts";
import { rolesUnchecked, userLive } from "./user.ts";

/**
 * egp's own kinds' parts of the live state; the live state's type, its part digests and the
 * stale-plan message's part names derive from it. A kind from outside egp brings its live read in
 * the kinds value the caller passes (src/compose/kinds.ts), and `readLiveState` reads the list it
 * is given.
 */
const BUILT_IN = [securityParameterLive, userLive, packageLive, recordLive] as const;

export type { AnyLiveKind };

/** The parts of the live state: the intersection of what each kind's read returns. */
type Parts<T extends readonly AnyLiveKind[]> = T extends readonly [
  infer First extends AnyLiveKind,
  ...infer Rest extends readonly AnyLiveKind[],
]
  ? Awaited<ReturnType<First["read"]>> & Parts<Rest>
  : unknown;

/** The built-in parts of the live state; a plugin kind's part is there too, read by its own code (`liveOf`). */
export type LiveParts = Parts<typeof BUILT_IN>;
type BuiltInPartName = (typeof BUILT_IN)[number]["part"];
export type LivePartName = BuiltInPartName | (string & {});
/** Each part's digest, by part name (a plugin kind's part too). */
export type PartDigests = Record<BuiltInPartName, string> & Readonly<Record<string, string>>;

/** egp's own live reads, in the order they are started: what a state is read with when no kinds are given. */
export const BUILT_IN_LIVE_KINDS: readonly AnyLiveKind[] = Object.freeze([...BUILT_IN]);

/** A list of live reads, checked: one part name each. */
export function liveKinds(list: readonly AnyLiveKind[]): readonly AnyLiveKind[] {
  const seen = new Set<string>();
  for (const kind of list) {
    if (seen.has(kind.part)) throw new TypeError(`live part ${kind.part} is listed twice`);
    seen.add(kind.part);
  }
  return Object.freeze([...list]);
}

/**
 * A plugin kind's fields of a live state, typed as its read returns them: the state's type knows
 * egp's own parts only. Partial: a state read without the kind has none.
 */
export function liveOf<State>(_kind: LiveKind<string, State, unknown>, live: object): Partial<State> {
  return live as Partial<State>;
}

export { packageLive, recordLive, rolesUnchecked, securityParameterLive, userLive };
