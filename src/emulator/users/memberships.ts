import type { ValidationMessage } from "../../wire/index.ts";
import { message } from "../failure.ts";
import type { Store } from "../store.ts";

export type MembershipKind = "Roles" | "Groups";

/** A validation message for each id of the list that names no role (or group). */
export function unknownMemberships(
  store: Store,
  kind: MembershipKind,
  ids: readonly number[],
): ValidationMessage[] {
  const exists = (id: number) => (kind === "Roles" ? store.role(id) : store.group(id)) !== undefined;
  const noun = kind === "Roles" ? "role" : "group";
  return ids
    .filter((id) => !exists(id))
    .map((id) =>
      message(`Unknown${noun === "role" ? "Role" : "Group"}`, `${kind}: ${noun} ${id} does not exist.`, {
        erroredValue: id,
      }),
    );
}

/** Adds or removes one id; adding twice and removing a non-member are no-ops. */
export function withMembership(ids: readonly number[], id: number, isAdd: boolean): number[] {
  const without = ids.filter((existing) => existing !== id);
  return isAdd ? [...without, id].sort((a, b) => a - b) : without;
}

/** The list without duplicates, in ascending order. */
export function membershipList(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}
