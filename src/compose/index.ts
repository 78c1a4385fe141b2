export type { HttpConnections } from "./connections.ts";
export { clientOptionsOf, httpConnections } from "./connections.ts";
export type {
  EnvironmentPlan,
  OpenEnvironment,
  PlanContext,
  PlanEnvironmentOptions,
} from "./plan-environment.ts";
export { planEnvironment, readEnvironment } from "./plan-environment.ts";
export { openProjectStore } from "./project-store.ts";
