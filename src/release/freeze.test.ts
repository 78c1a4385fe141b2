import { describe, expect, it } from "vitest";
import type { FreezeWindow } from "../manifest/freeze.ts";
import type { FreezeException } from "../manifest/freeze-exception.ts";
import { describeWindow, freezeDecision, inWindow } from "./freeze.ts";

const yearEnd: FreezeWindow = {
  kind: "once",
  from: "2026-12-20T00:00:00Z",
  to: "2027-01-04T00:00:00Z",
  reason: "year-end close",
};
const weekend: FreezeWindow = {
  kind: "weekly",
  days: ["friday", "saturday", "sunday"],
  from: "16:00",
  to: "23:59",
  timeZone: "Europe/Berlin",
  reason: "weekend",
};
const night: FreezeWindow = {
  kind: "weekly",
  days: ["monday"],
  from: "22:00",
  to: "05:59",
  timeZone: "UTC",
  reason: "batch",
};

const exception = (over: Partial<FreezeException> = {}): FreezeException => ({
  name: "hotfix",
  file: "freeze-exceptions/hotfix.yaml",
  environment: "prod",
  until: "2026-12-21T12:00:00Z",
  reason: "incident 42",
  allowedBy: ["alice"],
  ...over,
});

describe("freeze windows", () => {
  it("a once window holds from its start up to, not including, its end", () => {
    expect(inWindow(yearEnd, new Date("2026-12-19T23:59:59Z"))).toBe(false);
    expect(inWindow(yearEnd, new Date("2026-12-20T00:00:00Z"))).toBe(true);
    expect(inWindow(yearEnd, new Date("2027-01-03T23:59:59Z"))).toBe(true);
    expect(inWindow(yearEnd, new Date("2027-01-04T00:00:00Z"))).toBe(false);
  });

  it("a weekly window is read in its own time zone", () => {
    // Friday 2026-11-27 16:30 in Berlin is 15:30 UTC (CET, +1).
    expect(inWindow(weekend, new Date("2026-11-27T15:30:00Z"))).toBe(true);
    expect(inWindow(weekend, new Date("2026-11-27T14:59:00Z"))).toBe(false);
    // Its last minute is frozen; Monday is not.
    expect(inWindow(weekend, new Date("2026-11-29T22:59:30Z"))).toBe(true);
    expect(inWindow(weekend, new Date("2026-11-29T23:00:00Z"))).toBe(false);
    // Thursday at the same hour is open.
    expect(inWindow(weekend, new Date("2026-11-26T15:30:00Z"))).toBe(false);
  });

  it("a weekly window that runs past midnight belongs to the day it starts on", () => {
    expect(inWindow(night, new Date("2026-11-30T23:00:00Z"))).toBe(true); // Monday night
    expect(inWindow(night, new Date("2026-12-01T05:30:00Z"))).toBe(true); // Tuesday morning
    expect(inWindow(night, new Date("2026-12-01T06:00:00Z"))).toBe(false);
    expect(inWindow(night, new Date("2026-11-30T05:30:00Z"))).toBe(false); // Monday morning
  });

  it("names the window with its reason", () => {
    expect(describeWindow(yearEnd)).toBe("year-end close (2026-12-20T00:00:00Z to 2027-01-04T00:00:00Z)");
    expect(describeWindow(weekend)).toBe("weekend (friday, saturday, sunday 16:00–23:59 Europe/Berlin)");
  });
});

describe("freeze decisions", () => {
  const now = new Date("2026-12-21T00:00:00Z");

  it("is open outside every window", () => {
    expect(freezeDecision([yearEnd], [], "prod", "alice", new Date("2026-12-01T00:00:00Z"))).toEqual({
      state: "open",
    });
  });

  it("is frozen in a window with no exception", () => {
    expect(freezeDecision([weekend, yearEnd], [], "prod", "alice", now)).toMatchObject({
      state: "frozen",
      window: yearEnd,
    });
  });

  it("lets through the actor an unexpired exception names", () => {
    expect(freezeDecision([yearEnd], [exception()], "prod", "Alice", now)).toMatchObject({
      state: "excepted",
      exception: { name: "hotfix" },
    });
  });

  it("refuses another actor, an expired exception, one too far ahead and one for another environment", () => {
    const cases: [FreezeException, string, string][] = [
      [exception(), "mallory", "does not allow mallory"],
      [exception({ until: "2026-12-20T23:00:00Z" }), "alice", "expired at 2026-12-20T23:00:00Z"],
      [exception({ until: "2026-12-22T00:00:01Z" }), "alice", "more than 24 hours ahead"],
    ];
    for (const [given, actor, reason] of cases) {
      const decision = freezeDecision([yearEnd], [given], "prod", actor, now);
      expect(decision.state).toBe("frozen");
      expect(decision.state === "frozen" && decision.declined.join()).toContain(reason);
    }
    expect(freezeDecision([yearEnd], [exception({ environment: "test" })], "prod", "alice", now)).toEqual({
      state: "frozen",
      window: yearEnd,
      declined: [],
    });
  });
});
