import type { SecurityParameter } from "../../wire/index.ts";
import type { OpContext } from "./types.ts";

/*
 * Reads that more than one kind's ops need, cached on the run's context: a kind's ops read what
 * another kind owns through here, never through that kind's ops.
 */

/** The environment's security parameters, read once per run and again after a step changes one. */
export function parametersOf(context: OpContext, refresh = false): Promise<SecurityParameter[]> {
  return context.shared(
    "securityParameters",
    () => context.client.securityParameters.list() as Promise<SecurityParameter[]>,
    refresh,
  );
}
