import type { ReadContext } from "./kind.ts";
import { packageLive } from "./package.ts";
import { securityParameterLive } from "./security-parameter.ts";
import { userLive } from "./user.ts";

/**
 * Every kind's part of the live state; a new kind is a new file and one entry here. The live
 * state's fields, its part digests and the stale-plan message's part names derive from it.
 */
export const LIVE_KINDS = [securityParameterLive, userLive, packageLive] as const;

interface AnyLiveKind {
  part: string;
  read(context: ReadContext): Promise<unknown>;
}

/** The parts of the live state: the intersection of what each kind's read returns. */
type Parts<T extends readonly AnyLiveKind[]> = T extends readonly [
  infer First extends AnyLiveKind,
  ...infer Rest extends readonly AnyLiveKind[],
]
  ? Awaited<ReturnType<First["read"]>> & Parts<Rest>
  : unknown;

export type LiveParts = Parts<typeof LIVE_KINDS>;
export type LivePartName = (typeof LIVE_KINDS)[number]["part"];
