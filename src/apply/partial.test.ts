import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredParameter,
  desiredUser,
  live,
  liveParameter,
  liveUser,
} from "../../test/builders/plan.ts";
import { planChanges } from "../plan/index.ts";
import type { JournalState } from "./journal.ts";
import { assertResumable } from "./resume.ts";
import { assertFresh, assertSamePlan } from "./stale.ts";

/* The stale-plan and resume checks of a saved partial plan (`--target`) compare only its targets. */

const TARGETS = { targets: ["User/kmurphy"] };
const manifests = desired({
  securityParameters: [desiredParameter("Contractor Parameter", { MinPasswordLength: 14 })],
  users: [
    desiredUser("kmurphy", { securityParameter: "Contractor Parameter" }),
    desiredUser("anguyen", { fields: { FirstName: "An", LastName: "Nguyen", Title: "Risk Manager" } }),
  ],
});
const before = live({ users: [liveUser(1, "svc_gitops"), liveUser(2, "anguyen", { Title: "Old" })] });
const plan = (d = manifests, l = before) => planChanges(d, l, { createdAt: CREATED_AT, ...TARGETS });

function interruptedAfter(saved: ReturnType<typeof plan>, done: number): JournalState {
  return {
    plan: saved,
    done: new Map(saved.steps.slice(0, done).map((step) => [step.id, {}])),
    interrupted: new Set(),
    origins: new Map(),
    complete: false,
    startedAt: CREATED_AT,
  };
}

describe("a saved partial plan", () => {
  const saved = plan();

  it("stays fresh when objects it does not target change, in the manifests or on the instance", () => {
    const other = desired({
      ...manifests,
      digest: "the files changed",
      users: [
        manifests.users[0]!,
        desiredUser("anguyen", { fields: { FirstName: "An", LastName: "N", Title: "CRO" } }),
      ],
    });
    const elsewhere = live({ users: [...before.users, liveUser(3, "newcomer")] });
    const fresh = plan(other, elsewhere);
    expect(() => assertFresh(saved, fresh)).not.toThrow();
    expect(() => assertSamePlan(saved, fresh)).not.toThrow();
  });

  it("is stale when a target changed", () => {
    const changed = desired({
      ...manifests,
      users: [
        desiredUser("kmurphy", {
          securityParameter: "Contractor Parameter",
          fields: { FirstName: "K", LastName: "M" },
        }),
      ],
    });
    expect(() => assertFresh(saved, plan(changed))).toThrow(
      /is stale: the manifests or environment files changed/,
    );
    const appeared = live({ users: [...before.users, liveUser(4, "KMurphy")] });
    expect(() => assertFresh(saved, plan(manifests, appeared))).toThrow(
      /is stale: the live targeted User objects of prod changed/,
    );
  });

  it("resumes after its first step, and not once a target reads differently", () => {
    const state = interruptedAfter(saved, 1);
    const made = live({
      ...before,
      securityParameters: [
        ...before.securityParameters,
        liveParameter(9, "Contractor Parameter", { MinPasswordLength: 14 }),
      ],
    });
    expect(() => assertResumable(state, plan(manifests, made))).not.toThrow();
    const changed = desired({
      ...manifests,
      users: [desiredUser("kmurphy", { fields: { FirstName: "Other", LastName: "M" } })],
    });
    expect(() => assertResumable(state, plan(changed, made))).toThrow(/interrupted plan .* is stale/);
  });
});
