import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredParameter,
  desiredUser,
  live,
  packageObject,
} from "../../../test/builders/plan.ts";
import type { DesiredRelease } from "../../manifest/index.ts";
import { planChanges, planConsistency, readPlanFile, writePlanFile } from "../index.ts";

/* An environment that runs a release: compared with the release's recorded parts, installed from the store. */

const SHA = "a".repeat(64);
const GUID = "4caff78e-cce8-5f03-b80c-e75d0f6cf95c";
const addedParts = (result: ReturnType<typeof planChanges>) =>
  result.changes.flatMap((c) => c.fields.flatMap((f) => f.parts ?? [])).filter((p) => p.status === "added");
const release: DesiredRelease = {
  formatVersion: 1,
  name: "2026-11-r1",
  createdAt: CREATED_AT,
  from: "dev",
  file: "releases/2026-11-r1.yaml",
  text: "",
  packages: [
    {
      name: "GRC Core",
      sha256: SHA,
      size: 10,
      inactivateUnusedFields: false,
      prefixInactivatedFields: null,
      snapshot: true,
      objects: [
        {
          guid: "g-1",
          type: "Application",
          name: "Risk Register",
          fingerprint: "new",
          parts: { rule: "15" },
          installMethod: 2,
          installOption: 1,
          translationOption: 0,
        },
      ],
    },
  ],
};
const target = (rule: string) =>
  live({
    packages: {
      applicationsByName: {},
      objects: { "g-1": packageObject("g-1", "Risk Register", rule, { rule }) },
    },
  });
const plan = (rule: string) => planChanges(desired({ release }), target(rule), { createdAt: CREATED_AT });

describe("a release's plan", () => {
  it("installs the stored file on the target only, snapshot first, and verifies the recorded parts", () => {
    const result = plan("20");
    expect(result.changes.map((c) => c.id)).toEqual(["Package/GRC Core"]);
    expect(result.steps.map((s) => `${s.op}@${s.environment}`)).toEqual([
      "package.fetch@prod",
      "package.snapshot@prod",
      "package.snapshot-generate@prod",
      "package.snapshot-download@prod",
      "package.upload@prod",
      "package.install@prod",
      "package.verify@prod",
    ]);
    const step = (verb: string) => result.steps.find((s) => s.id === `Package/GRC Core#${verb}`);
    expect(step("fetch")?.input).toEqual({ release: "2026-11-r1", sha256: SHA, size: 10 });
    expect(step("snapshot")?.input).toEqual({
      name: "GRC Core (egp snapshot)",
      objects: [{ guid: "g-1", type: "Application", name: "Risk Register", fingerprint: "20" }],
    });
    expect(step("snapshot-download")?.input).toEqual({ objects: ["g-1"] });
    expect(step("snapshot")?.dependsOn).toEqual(["Package/GRC Core#fetch"]);
    expect(step("snapshot-download")?.dependsOn).toEqual([
      "Package/GRC Core#snapshot-generate",
      "Package/GRC Core#fetch",
    ]);
    expect(step("upload")?.dependsOn).toEqual([
      "Package/GRC Core#fetch",
      "Package/GRC Core#snapshot-download",
    ]);
    expect(step("install")?.input.release).toEqual({ from: "dev", created: [], release: "2026-11-r1" });
    expect(step("verify")?.input).toMatchObject({ objects: [{ guid: "g-1", parts: { rule: "15" } }] });
    expect(result.sourceEnvironment).toBeUndefined();
  });

  it("holds together as the Package kind declares a promotion, saved and read back", () => {
    expect(planConsistency(readPlanFile(writePlanFile(plan("20"))))).toEqual([]);
  });

  it("writes nothing before the release's file is fetched and checked: users and parameters wait for it", () => {
    const result = planChanges(
      desired({ release, users: [desiredUser("jdoe")], securityParameters: [desiredParameter("Policy")] }),
      target("20"),
      { createdAt: CREATED_AT },
    );
    const fetch = "Package/GRC Core#fetch";
    const others = result.steps.filter((s) => s.id !== fetch);
    expect(others.map((s) => s.op)).toEqual(
      expect.arrayContaining(["user.create", "securityParameter.create"]),
    );
    for (const step of others) expect(step.dependsOn).toContain(fetch);
    expect(result.steps[0]?.id).toBe(fetch);
  });

  it("has nothing to do when the target's parts are the release's", () => {
    expect(plan("15").changes).toEqual([]);
  });

  it("names a part the release adds by the name it recorded, the GUID beside it", () => {
    const named = structuredClone(release);
    const [object] = named.packages[0]?.objects ?? [];
    if (!object) throw new Error("the release has no object");
    object.parts = { rule: "15", [`field:${GUID}`]: "x" };
    object.names = { [`field:${GUID}`]: { name: "Last Tested", parent: "Control" } };
    const planned = planChanges(desired({ release: named }), target("20"), { createdAt: CREATED_AT });
    expect(addedParts(planned)).toEqual([
      {
        part: "field",
        guid: GUID,
        name: "Last Tested",
        parent: "Control",
        status: "added",
        severity: "normal",
      },
    ]);
    // A file written before names were recorded still plans; its new parts are named by GUID.
    delete object.names;
    const unnamed = planChanges(desired({ release: named }), target("20"), { createdAt: CREATED_AT });
    expect(addedParts(unnamed)).toMatchObject([{ guid: GUID, name: GUID, status: "added" }]);
  });
});
