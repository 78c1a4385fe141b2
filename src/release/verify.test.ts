import { describe, expect, it } from "vitest";
import { verificationState } from "./verified.ts";
import { verifyFailure, verifyNotice } from "./verify.ts";

const changed = {
  environment: "test",
  release: "r1",
  result: "not-verified" as const,
  changed: ["Package/GRC Core (Objects.Controls)"],
};

describe("a soak's verification", () => {
  it("reads a record without a state as verified, and only a verified state as verified", () => {
    const base = { verifiedAt: "2026-12-06T10:00:00.000Z" };
    expect(verificationState(base)).toEqual({ state: "verified", at: base.verifiedAt });
    expect(verificationState({ ...base, state: "soaking", soakUntil: "2026-12-06T10:30:00.000Z" })).toEqual({
      state: "soaking",
      since: base.verifiedAt,
      until: "2026-12-06T10:30:00.000Z",
    });
    expect(verificationState({ ...base, state: "not-verified", reason: "changed" })).toMatchObject({
      state: "not-verified",
      reason: "changed",
    });
    // A soak without its end, or a state this egp does not know, never counts as verified.
    expect(verificationState({ ...base, state: "soaking" }).state).toBe("not-verified");
    expect(verificationState({ ...base, state: "approved" })).toMatchObject({
      state: "not-verified",
      reason: 'its state is "approved"',
    });
  });

  it("notifies verified, or verification-failed naming what changed", () => {
    expect(verifyNotice({ ...changed, result: "verified", changed: [] })).toEqual({
      event: "verified",
      environment: "test",
      release: "r1",
      summary: "nothing changed during the soak; verified",
    });
    expect(verifyNotice(changed)).toEqual({
      event: "verification-failed",
      environment: "test",
      release: "r1",
      summary: "not verified: changed during the soak: Package/GRC Core (Objects.Controls)",
    });
  });

  it("ends a run that found a change with EGP_SOAK_CHANGED, and one that did not with none", () => {
    expect(verifyFailure({ ...changed, result: "verified", changed: [] })).toBeUndefined();
    expect(verifyFailure(changed)).toMatchObject({
      code: "EGP_SOAK_CHANGED",
      message:
        "release r1 is not verified on test: changed during the soak: Package/GRC Core (Objects.Controls)",
    });
  });
});
