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
import { assertFresh } from "./stale.ts";

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
    partDigests: { securityParameters: "p", users: "u", packages: `k-${source}-${target}` },
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
