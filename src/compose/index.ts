export type { HttpConnections } from "./connections.ts";
export { clientOptionsOf, httpConnections } from "./connections.ts";
// kinds.ts is imported by its own name (src/index.ts): it bundles parts of the apply and export
// stages, which a command that only plans does not load.
export type { Kind, Kinds } from "./kinds.ts";
export type {
  EnvironmentPlan,
  OpenEnvironment,
  PlanContext,
  PlanEnvironmentOptions,
} from "./plan-environment.ts";
export { planEnvironment, readEnvironment } from "./plan-environment.ts";
export { openProjectStore } from "./project-store.ts";
