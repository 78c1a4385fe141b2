import { AuthError, ConnectionError } from "../client/errors.ts";
import { EgpError } from "../errors/index.ts";
import { BUILT_IN_DOCUMENT_KINDS, type DesiredState } from "../manifest/index.ts";
import type { Kinds } from "./kinds.ts";

/*
 * A read-only view (drift, status) compares what it can read and lists the rest as unchecked. When
 * every read it needed failed, nothing was compared: that is no drift report but an error (exit 1),
 * as the view of an instance that can't be reached always was.
 */

/** What a tolerant view could not compare, why, and the failure itself (in memory). */
export interface UncheckedRead {
  what: string;
  why: string;
  error?: unknown;
}

/** Whether a document of some kind, or a package, is left to compare. */
function comparesSomething(desired: DesiredState, kinds: Kinds | undefined): boolean {
  if (desired.packages.length > 0) return true;
  const lists = desired as unknown as Readonly<Record<string, unknown>>;
  return (kinds?.documents ?? BUILT_IN_DOCUMENT_KINDS).listed.some((kind) => {
    const list = lists[kind.plural];
    return Array.isArray(list) && list.length > 0;
  });
}

/** The instance itself could not be reached or refused the login: every read failed alike. */
const unreachable = (error: unknown) => error instanceof ConnectionError || error instanceof AuthError;

/**
 * Throws when a view that left things out (`unchecked`) has nothing left to compare: the instance's
 * own failure when it can't be reached or refuses the login (the line `plan` prints), else
 * EGP_NOTHING_CHECKED naming each read and why it failed.
 */
export function assertSomethingChecked(
  env: string,
  compared: DesiredState,
  unchecked: readonly UncheckedRead[],
  kinds: Kinds | undefined,
): void {
  if (unchecked.length === 0 || comparesSomething(compared, kinds)) return;
  const errors = unchecked.map((u) => u.error).filter((error) => error !== undefined);
  if (errors.length === unchecked.length && errors.every(unreachable)) throw errors[0];
  const list = unchecked.map((u) => `${u.what}: ${u.why}`).join("; ");
  throw new EgpError("EGP_NOTHING_CHECKED", `nothing of ${env} could be checked: ${list}`, {
    cause: errors[0],
  });
}
