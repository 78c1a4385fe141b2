import type { SecurityParameter } from "../../wire/index.ts";
import { hash } from "../digest.ts";
import { liveKind } from "./kind.ts";

/** Security parameters: one get-all, started early. */
export const securityParameterLive = liveKind({
  part: "securityParameters",
  label: "security parameters",
  async read({ early }): Promise<{ securityParameters: SecurityParameter[] }> {
    return { securityParameters: [...(await early.securityParameters)].sort((a, b) => a.Id - b.Id) };
  },
  digest: (state) => hash(state.securityParameters),
});
