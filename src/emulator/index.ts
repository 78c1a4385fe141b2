export type { FaultAction, FaultRule, FaultSpec } from "./faults.ts";
export { Faults, parseFaultSpec } from "./faults.ts";
export type { EmulatorOptions, EmulatorOptionsInput } from "./options.ts";
export { FIXED } from "./seeds/fixed.ts";
export type { Emulator } from "./server.ts";
export { buildEmulator, startEmulator } from "./server.ts";
export type { Store } from "./store.ts";
