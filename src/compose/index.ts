export type {
  EnvironmentPlan,
  OpenEnvironment,
  PlanContext,
  PlanEnvironmentOptions,
} from "./plan-environment.ts";
export { planEnvironment, readEnvironment } from "./plan-environment.ts";
