import { describe, expect, it } from "vitest";
import type { PackageObjectParts, PackagePart } from "../state/index.ts";
import { planRollback, type RollbackRelease } from "./rollback-plan.ts";

const part = (
  fingerprint: string,
  label: string,
  name: string,
  level: string | null = null,
): PackagePart => ({
  fingerprint,
  label,
  name,
  level,
});

/** Controls as the snapshot held it: a level, one field, the level's layout. */
function release(): RollbackRelease {
  return {
    id: "abc123def456",
    release: "2026-11-r1",
    sourceEnvironment: "dev",
    environment: "prod",
    package: { name: "GRC Core" },
    snapshot: {
      digest: "d".repeat(64),
      takenAt: "2026-11-24T00:00:00.000Z",
      objects: [
        {
          guid: "g-1",
          type: "Application",
          name: "Controls",
          parts: { "level:l-1": "L", "field:f-1": "F", "layout:y-1": "Y" },
        },
      ],
    },
    created: [{ guid: "g-2", type: "Application", name: "Findings" }],
    startedAt: "2026-11-24T00:00:01.000Z",
  };
}

function live(parts: Record<string, PackagePart>): Record<string, PackageObjectParts> {
  return { "g-1": { guid: "g-1", type: "Application", name: "Controls", parts } };
}

const SAME = {
  "level:l-1": part("L", 'level "Control"', "Control"),
  "field:f-1": part("F", 'field "Owner"', "Owner", "l-1"),
  "layout:y-1": part("Y", 'layout "Control Layout"', "Control Layout", "l-1"),
};

describe("planRollback", () => {
  it("installs the snapshot with create-and-update, override layout and the prefix, and names what it can't undo", () => {
    const { plan, notes } = planRollback({
      release: release(),
      live: live({
        ...SAME,
        "field:f-1": part("F2", 'field "Owner"', "Owner", "l-1"),
        "field:f-new": part("N", 'field "Last Tested"', "Last Tested", "l-1"),
        "rule:r-new": part("R", 'event rule "Ineffective control"', "Ineffective control"),
        "level:l-new": part("L2", 'level "Test"', "Test"),
      }),
      prefix: "ROLLBACK_",
      createdAt: "2026-11-24T01:00:00.000Z",
    });
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({ id: "Package/GRC Core", action: "rollback" });
    expect(plan.changes[0]?.fields).toEqual([
      {
        field: "Application Controls",
        before: "1 part(s) differ from the snapshot, 1 added field(s) active",
        after: "as on 2026-11-24T00:00:00.000Z",
        verifiable: true,
      },
    ]);
    expect(notes).toEqual([
      "rolls back install abc123def456 of release 2026-11-r1 (promoted 2026-11-24T00:00:01.000Z) to the snapshot taken before it",
      `created by the promotion; the interface can't delete them: Application "Findings"`,
      `added by the promotion, which an install can't remove: Controls: event rule "Ineffective control", level "Test"`,
      `added by the promotion, deactivated and renamed ROLLBACK_…: Controls: "Last Tested"`,
    ]);
    expect(plan.changes[0]?.notes).toEqual(notes);
    expect(plan.steps.map((s) => s.id)).toEqual([
      "Package/GRC Core#upload",
      "Package/GRC Core#install",
      "Package/GRC Core#rollback-verify",
    ]);
    expect(plan.steps[0]?.input).toEqual({ artifact: "d".repeat(64) });
    expect(plan.steps[1]?.input).toEqual({
      inactivateUnusedFields: true,
      prefixInactivatedFields: "ROLLBACK_",
      objects: [
        {
          guid: "g-1",
          type: "Application",
          name: "Controls",
          installMethod: 2,
          installOption: 2,
          translationOption: 1,
        },
      ],
    });
    expect(plan.steps[2]?.input).toEqual({ release: "abc123def456" });
  });

  it("sends the codes the target's environment file gives for create-and-update, override and install", () => {
    const { plan } = planRollback({
      release: release(),
      live: live({ ...SAME, "field:f-1": part("F2", 'field "Owner"', "Owner", "l-1") }),
      prefix: "ROLLBACK_",
      createdAt: "2026-11-24T01:00:00.000Z",
      installCodes: { installMethod: { createAndUpdate: 20 }, translationOption: { install: 10 } },
    });
    expect(plan.steps[1]?.input.objects).toEqual([
      {
        guid: "g-1",
        type: "Application",
        name: "Controls",
        installMethod: 20,
        installOption: 2,
        translationOption: 10,
      },
    ]);
  });

  it("counts a new layout of a level the snapshot holds as restored (override replaces it), not as left behind", () => {
    const { plan, notes } = planRollback({
      release: release(),
      live: live({
        "level:l-1": SAME["level:l-1"],
        "field:f-1": SAME["field:f-1"],
        "layout:y-2": part("Y2", 'layout "New Layout"', "New Layout", "l-1"),
      }),
      prefix: "ROLLBACK_",
      createdAt: "2026-11-24T01:00:00.000Z",
    });
    expect(plan.changes[0]?.fields[0]?.before).toBe("1 part(s) differ from the snapshot");
    expect(notes.join("\n")).not.toContain("New Layout");
  });

  it("has nothing to install when the target reads as the snapshot and added fields carry the prefix already", () => {
    const { plan, notes } = planRollback({
      release: release(),
      live: live({
        ...SAME,
        "field:f-new": part("N", 'field "ROLLBACK_Last Tested"', "ROLLBACK_Last Tested"),
      }),
      prefix: "ROLLBACK_",
      createdAt: "2026-11-24T01:00:00.000Z",
    });
    expect(plan.changes).toEqual([]);
    expect(plan.steps).toEqual([]);
    expect(notes).toContain(
      `created by the promotion; the interface can't delete them: Application "Findings"`,
    );
  });

  it("gives the same plan id for the same release and live state, another when the target changed", () => {
    const input = { release: release(), live: live(SAME), prefix: "ROLLBACK_", createdAt: "t1" };
    const changed = live({ ...SAME, "field:f-1": part("F3", 'field "Owner"', "Owner", "l-1") });
    expect(planRollback(input).plan.id).toBe(planRollback({ ...input, createdAt: "t2" }).plan.id);
    expect(planRollback({ ...input, live: changed }).plan.id).not.toBe(planRollback(input).plan.id);
  });
});

describe("planRollback's digest of the live parts", () => {
  it("is canonical: the same parts listed in another order make the same plan id", () => {
    const reversed = Object.fromEntries(Object.entries(SAME).reverse());
    const first = planRollback({
      release: release(),
      live: live(SAME),
      prefix: "zz_",
      createdAt: "2026-11-25T00:00:00.000Z",
    });
    const second = planRollback({
      release: release(),
      live: live(reversed),
      prefix: "zz_",
      createdAt: "2026-11-25T00:00:00.000Z",
    });
    expect(Object.keys(reversed)).not.toEqual(Object.keys(SAME));
    expect(second.plan.id).toBe(first.plan.id);
    expect(second.plan.digests.live).toBe(first.plan.digests.live);
  });
});
