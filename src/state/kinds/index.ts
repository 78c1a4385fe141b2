import type { EarlyRead, LiveKind, Needed, ReadContext } from "./kind.ts";
import { packageLive } from "./package.ts";
import { securityParameterLive } from "./security-parameter.ts";
import { userLive } from "./user.ts";

/**
 * Every kind's part of the live state; a new kind is a new file and one entry here. The live
 * state's fields, its part digests and the stale-plan message's part names derive from it.
 */
const BUILT_IN = [securityParameterLive, userLive, packageLive] as const;

interface AnyLiveKind {
  part: string;
  label: string;
  early?: EarlyRead<unknown>;
  needed?: Needed<unknown>;
  read(context: ReadContext): Promise<unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: the state type differs per kind; each kind is typed where it is defined.
  digest(state: any): string;
}

/**
 * Parts registered from outside this list (`registerLiveKind`), by part name, each with what its
 * read returns. A module that registers one adds it here, so that the live state's type has it:
 * `declare module ".../state/kinds/index.ts" { interface RegisteredLiveParts { widgets: { widgets: Widget[] } } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging, as above.
export interface RegisteredLiveParts {}

type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void
  ? I
  : never;

/** The parts of the live state: the intersection of what each kind's read returns. */
type Parts<T extends readonly AnyLiveKind[]> = T extends readonly [
  infer First extends AnyLiveKind,
  ...infer Rest extends readonly AnyLiveKind[],
]
  ? Awaited<ReturnType<First["read"]>> & Parts<Rest>
  : unknown;

/**
 * A registered kind's part is optional: a state read before it was registered has none (a kind
 * reads its own part with `?? `its empty value).
 */
export type LiveParts = Parts<typeof BUILT_IN> &
  ([keyof RegisteredLiveParts] extends [never]
    ? unknown
    : Partial<Intersection<RegisteredLiveParts[keyof RegisteredLiveParts]>>);
type BuiltInPartName = (typeof BUILT_IN)[number]["part"];
export type LivePartName = BuiltInPartName | (keyof RegisteredLiveParts & string);
/** Each part's digest, by part name (registered parts only when read). */
export type PartDigests = Record<BuiltInPartName, string> & { [P in keyof RegisteredLiveParts]?: string };

/** Read in this order, all at once; grows as kinds are registered. */
export const LIVE_KINDS: readonly AnyLiveKind[] = [...BUILT_IN];

/** Adds a kind's live read (a kind outside this list); its part name must be new. */
export function registerLiveKind<Part extends string, State, Early>(
  kind: LiveKind<Part, State, Early>,
): void {
  if (LIVE_KINDS.some((known) => known.part === kind.part))
    throw new TypeError(`live part ${kind.part} is already registered`);
  (LIVE_KINDS as AnyLiveKind[]).push(kind as AnyLiveKind);
}
