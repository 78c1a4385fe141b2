import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredPackage,
  environment,
  live,
  packageObject,
} from "../../test/builders/plan.ts";
import { planChanges } from "../plan/index.ts";
import type { LivePackageSide } from "../state/live-state.ts";
import { assertFresh, assertSamePlan, PlanMismatchError } from "./stale.ts";

/* A saved promotion is refused once either instance it read changed, naming that instance. */

const dev = environment("dev");
const test = environment("test");
const manifests = desired({
  environment: test,
  packagesFrom: dev,
  packages: [desiredPackage("GRC Core", ["Risk Register"])],
});
const side = (fingerprint: string): LivePackageSide => ({
  applicationsByName: { "risk register": "g-1" },
  objects: { "g-1": packageObject("g-1", "Risk Register", fingerprint, { rule: fingerprint }) },
});
const state = (source: string, target: string) =>
  live({
    environment: "test",
    packages: side(target),
    packageSource: { environment: "dev", ...side(source) },
    // The state layer's digests of the packages part cover both instances at once.
    digest: `live-${source}-${target}`,
    partDigests: { securityParameters: "p", users: "u", packages: `k-${source}-${target}`, records: "r" },
  });
const plan = (source: string, target: string) =>
  planChanges(manifests, state(source, target), { createdAt: CREATED_AT });

describe("a saved promotion's staleness", () => {
  const saved = plan("Risk_Score >= 15", "Risk_Score >= 5");

  it("names the source when the source changed", () => {
    expect(() => assertFresh(saved, plan("Risk_Score >= 10", "Risk_Score >= 5"))).toThrow(
      /is stale: the live package objects of dev changed since/,
    );
  });

  it("names the target when the target changed", () => {
    expect(() => assertFresh(saved, plan("Risk_Score >= 15", "Risk_Score >= 7"))).toThrow(
      /is stale: the live package objects of test changed since/,
    );
  });

  it("names both when both changed", () => {
    expect(() => assertFresh(saved, plan("Risk_Score >= 10", "Risk_Score >= 7"))).toThrow(
      /the live package objects of test changed; the live package objects of dev changed/,
    );
  });

  it("is fresh when neither changed", () => {
    expect(() => assertFresh(saved, plan("Risk_Score >= 15", "Risk_Score >= 5"))).not.toThrow();
  });
});

describe("a saved plan that is not the one derived again", () => {
  const saved = () => structuredClone(plan("Risk_Score >= 15", "Risk_Score >= 5"));

  it("is called edited only when it does not hold together as egp makes plans", () => {
    const edited = saved();
    const install = edited.steps.find((step) => step.op === "package.install");
    if (install) install.op = "package.rollback-verify";
    expect(() => assertSamePlan(edited, plan("Risk_Score >= 15", "Risk_Score >= 5"))).toThrow(
      /does not hold together as egp makes plans \(step Package\/GRC Core#install runs package\.rollback-verify, which a promote of a Package never runs; step Package\/GRC Core#install\.op: "package\.rollback-verify" in the saved plan, "package\.install" in a fresh plan\); it was changed after it was made\. Run egp plan again\.$/,
    );
  });

  it("that holds together but differs may come from another egp: it is not called tampered with", () => {
    const other = saved();
    const verify = other.steps.find((step) => step.op === "package.verify");
    if (verify) verify.dependsOn = [];
    expect(() => assertSamePlan(other, plan("Risk_Score >= 15", "Risk_Score >= 5"))).toThrow(
      PlanMismatchError,
    );
    expect(() => assertSamePlan(other, plan("Risk_Score >= 15", "Risk_Score >= 5"))).toThrow(
      /^the saved plan \w+ is not what its manifests and the live state give \(step Package\/GRC Core#verify\.dependsOn: \[\] in the saved plan, \["Package\/GRC Core#install"\] in a fresh plan\); it was edited, or made by another version of egp or of its kinds\. Run egp plan again\.$/,
    );
  });

  it("is not blamed when egp's own fresh plan does not hold together: that is egp's defect", () => {
    const fresh = plan("Risk_Score >= 15", "Risk_Score >= 5");
    const undeclared = structuredClone(fresh);
    for (const change of undeclared.changes) change.action = "rollback";
    expect(() => assertSamePlan(saved(), undeclared)).toThrow(
      /^egp's own plan of test does not hold together \(.*which a rollback of a Package never runs.*\): a defect of egp or of a plugin kind \(its declared actions, its planner\), not of the file; the saved plan \w+ is not applied$/,
    );
    expect(() => assertSamePlan(saved(), undeclared)).not.toThrow(PlanMismatchError);
  });
});
