import { packageOps } from "./package.ts";
import { securityParameterOps } from "./security-parameter.ts";
import type { OpRegistry } from "./types.ts";
import { userOps } from "./user.ts";

/** Every step op and its handler; a new kind's ops are a new file and one spread here. */
export const OPS: OpRegistry = { ...securityParameterOps, ...userOps, ...packageOps };
