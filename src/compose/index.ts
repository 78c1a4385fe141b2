export type { HttpConnections } from "./connections.ts";
export { clientOptionsOf, httpConnections } from "./connections.ts";
export {
  actorOf,
  assertNotFrozen,
  FrozenError,
  freezeNotice,
  freezeState,
} from "./freeze-gate.ts";
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
export {
  ReleaseGateError,
  type StoredRelease,
  storedRelease,
  unverifiedOn,
  withRelease,
} from "./release-gate.ts";
export {
  environmentsInOrder,
  listReleases,
  type ReleaseListing,
  type VerifiedRecord,
  verificationsOfRelease,
  verifiedAtOf,
} from "./release-list.ts";
