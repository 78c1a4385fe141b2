import type { Plan } from "../plan/index.ts";

/** A saved plan made from manifests or a live state that have changed since. */
export class StalePlanError extends Error {
  readonly code = "EGP_PLAN_STALE";
  constructor(message: string) {
    super(message);
    this.name = "StalePlanError";
  }
}

const PART_NAMES: Record<string, string> = {
  securityParameters: "security parameters",
  users: "users",
  packages: "package objects",
};

/** Refuses a saved plan whose inputs changed, saying which. */
export function assertFresh(saved: Plan, fresh: Plan): void {
  const reasons: string[] = [];
  if (saved.digests.manifests !== fresh.digests.manifests)
    reasons.push("the manifests or environment files changed");
  if (saved.digests.live !== fresh.digests.live) {
    const parts = Object.keys(PART_NAMES).filter(
      (part) => saved.digests.liveParts[part] !== fresh.digests.liveParts[part],
    );
    const what = parts.map((part) => PART_NAMES[part]).join(", ") || "state";
    reasons.push(`the live ${what} of ${saved.environment} changed`);
  }
  if (reasons.length === 0) return;
  const savedIds = new Set(saved.changes.map((c) => `${c.id}:${c.action}`));
  const freshIds = new Set(fresh.changes.map((c) => `${c.id}:${c.action}`));
  const added = [...freshIds].filter((id) => !savedIds.has(id));
  const gone = [...savedIds].filter((id) => !freshIds.has(id));
  const detail = [
    added.length ? `now also: ${added.join(", ")}` : "",
    gone.length ? `no longer: ${gone.join(", ")}` : "",
  ].filter(Boolean);
  throw new StalePlanError(
    `the saved plan ${saved.id} is stale: ${reasons.join("; ")} since it was made${detail.length ? ` (${detail.join("; ")})` : ""}. Run egp plan again.`,
  );
}
