import type { SecurityParameter } from "../../wire/index.ts";
import { hash } from "../digest.ts";
import { type EarlyRead, earlyRead, liveKind, managesKind, pruneNames } from "./kind.ts";

const PART = "securityParameters";

/** Every security parameter: one get-all, which needs no manifest, so it starts early. */
export const parametersEarly: EarlyRead<SecurityParameter[]> = {
  start: (client) => client.securityParameters.list() as Promise<SecurityParameter[]>,
};

/** Security parameters: one get-all, started early. */
export const securityParameterLive = liveKind({
  part: PART,
  label: "security parameters",
  early: parametersEarly,
  // A user's plan checks its password against the parameters.
  needed: {
    kinds: ["SecurityParameter", "User", "PrunePolicy"],
    of: (desired) =>
      managesKind(desired, "SecurityParameter", desired.securityParameters) ||
      pruneNames(desired, "securityParameters") ||
      managesKind(desired, "User", desired.users),
    empty: { securityParameters: [] },
  },
  async read(context): Promise<{ securityParameters: SecurityParameter[] }> {
    const all = await earlyRead(context, PART, parametersEarly);
    return { securityParameters: [...all].sort((a, b) => a.Id - b.Id) };
  },
  digest: (state) => hash(state.securityParameters),
});
