import { describe, expect, it } from "vitest";
import type { DesiredRelease } from "../../manifest/index.ts";
import type { LivePackageSide } from "../../state/index.ts";
import { planRelease } from "./package-release.ts";

/* A release's plan names the parts it adds from the names the release file records. */

const GUID = "4caff78e-cce8-5f03-b80c-e75d0f6cf95c";

function release(names: boolean): DesiredRelease {
  const object = {
    guid: "app-1",
    type: "Application" as const,
    name: "Controls",
    fingerprint: "f-new",
    parts: { "module:app-1": "m", [`field:${GUID}`]: "x" },
    counts: { fields: 1 },
    ...(names
      ? {
          names: {
            "module:app-1": { name: "Controls" },
            [`field:${GUID}`]: { name: "Last Tested", parent: "Control" },
          },
        }
      : {}),
    installMethod: 2,
    installOption: 1,
    translationOption: 1,
  };
  return {
    formatVersion: 1,
    name: "r1",
    createdAt: "2026-11-20T00:00:00Z",
    from: "dev",
    packages: [
      {
        name: "GRC Core",
        sha256: "a".repeat(64),
        size: 1,
        inactivateUnusedFields: false,
        prefixInactivatedFields: null,
        snapshot: true,
        objects: [object],
      },
    ],
    file: "releases/r1.yaml",
    text: "",
  };
}

const target: LivePackageSide = {
  objects: {
    "app-1": {
      guid: "app-1",
      type: "Application",
      name: "Controls",
      fingerprint: "f-old",
      parts: {},
      partFingerprints: { "module:app-1": "m" },
    },
  },
  applicationsByName: {},
};

const addedParts = (plan: ReturnType<typeof planRelease>) =>
  plan.changes.flatMap((c) => c.fields.flatMap((f) => f.parts ?? []));

describe("planRelease", () => {
  it("names a part the release adds by its recorded name, the GUID beside it", () => {
    expect(addedParts(planRelease(release(true), target, "test"))).toEqual([
      {
        part: "field",
        guid: GUID,
        name: "Last Tested",
        parent: "Control",
        status: "added",
        severity: "normal",
      },
    ]);
  });

  it("names it by GUID from a release file written before names were recorded", () => {
    expect(addedParts(planRelease(release(false), target, "test"))).toMatchObject([
      { guid: GUID, name: GUID },
    ]);
  });
});
