import { describe, expect, it } from "vitest";
import type { FreezeWindow, Weekday } from "../manifest/freeze.ts";
import type { FreezeException } from "../manifest/freeze-exception.ts";
import { currentFreeze, describeWindow, freezeDecision, freezeEndOf, inWindow } from "./freeze.ts";

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

/** A weekly window starting on `days`, `from` to `to` wall clock in `timeZone`. */
const weekly = (timeZone: string, days: readonly Weekday[], from: string, to: string): FreezeWindow => ({
  kind: "weekly",
  days,
  from,
  to,
  timeZone,
  reason: "dst",
});

/**
 * Every minute (and the last second of each) from two hours before `start` to two hours after `end`
 * is frozen exactly when it lies in [start, end): the window is one stretch of real time.
 */
function expectFrozenExactly(window: FreezeWindow, start: string, end: string): void {
  const [first, last] = [Date.parse(start), Date.parse(end)];
  const wrong: string[] = [];
  for (let at = first - 2 * 3600_000; at < last + 2 * 3600_000; at += 30_000) {
    const expected = first <= at && at < last;
    if (inWindow(window, new Date(at)) !== expected)
      wrong.push(`${new Date(at).toISOString()} ${expected ? "open" : "frozen"}`);
  }
  expect(wrong).toEqual([]);
}

describe("weekly windows across daylight-saving changes", () => {
  describe("Europe/Berlin: back from 03:00 CEST to 02:00 CET on 2026-10-25, forward from 02:00 to 03:00 on 2026-03-29", () => {
    it("a night window over the fall-back freezes both occurrences of the repeated hour, to its end in CET", () => {
      // 22:00 CEST Saturday is 20:00Z; 04:00 CET is 03:00Z, frozen through its last minute.
      expectFrozenExactly(
        weekly("Europe/Berlin", ["saturday"], "22:00", "04:00"),
        "2026-10-24T20:00:00Z",
        "2026-10-25T03:01:00Z",
      );
    });

    it("the first and the second 02:30 of the fall-back night are both frozen", () => {
      const window = weekly("Europe/Berlin", ["saturday"], "22:00", "04:00");
      expect(inWindow(window, new Date("2026-10-25T00:30:00Z"))).toBe(true); // 02:30 CEST
      expect(inWindow(window, new Date("2026-10-25T01:30:00Z"))).toBe(true); // 02:30 CET
      // The same wall-clock hour a week later, with no change, is frozen too.
      expect(inWindow(window, new Date("2026-11-01T01:30:00Z"))).toBe(true);
    });

    it("a window inside the repeated hour runs from its bound's first occurrence to its bound's second", () => {
      // 02:30 CEST is 00:30Z; the last frozen minute is 02:45 CET, 01:45Z.
      expectFrozenExactly(
        weekly("Europe/Berlin", ["sunday"], "02:30", "02:45"),
        "2026-10-25T00:30:00Z",
        "2026-10-25T01:46:00Z",
      );
    });

    it("a night window over the spring-forward ends at its wall-clock time in CEST", () => {
      expectFrozenExactly(
        weekly("Europe/Berlin", ["saturday"], "22:00", "04:00"),
        "2026-03-28T21:00:00Z",
        "2026-03-29T02:01:00Z",
      );
    });

    it("a bound in the skipped hour moves to 03:00 CEST, the first instant after the gap", () => {
      expectFrozenExactly(
        weekly("Europe/Berlin", ["sunday"], "02:30", "06:00"),
        "2026-03-29T01:00:00Z",
        "2026-03-29T04:01:00Z",
      );
      // `to` is the last minute frozen, so a `to` in the gap freezes the minute from 03:00 CEST.
      expectFrozenExactly(
        weekly("Europe/Berlin", ["saturday"], "22:00", "02:30"),
        "2026-03-28T21:00:00Z",
        "2026-03-29T01:01:00Z",
      );
    });
  });

  describe("America/New_York: back from 02:00 EDT to 01:00 EST on 2026-11-01, forward from 02:00 to 03:00 on 2026-03-08", () => {
    it("a night window over the fall-back freezes both occurrences of 01:00-01:59", () => {
      // 22:00 EDT Saturday is 02:00Z; 03:00 EST is 08:00Z.
      expectFrozenExactly(
        weekly("America/New_York", ["saturday"], "22:00", "03:00"),
        "2026-11-01T02:00:00Z",
        "2026-11-01T08:01:00Z",
      );
    });

    it("a `to` in the repeated hour is its later occurrence, a `from` there its earlier", () => {
      // to 01:30: the EST 01:30 is 06:30Z.
      expectFrozenExactly(
        weekly("America/New_York", ["saturday"], "22:00", "01:30"),
        "2026-11-01T02:00:00Z",
        "2026-11-01T06:31:00Z",
      );
      // from 01:30: the EDT 01:30 is 05:30Z; 05:00 EST is 10:00Z.
      expectFrozenExactly(
        weekly("America/New_York", ["sunday"], "01:30", "05:00"),
        "2026-11-01T05:30:00Z",
        "2026-11-01T10:01:00Z",
      );
    });

    it("over the spring-forward, and with a bound in the skipped hour", () => {
      // 22:00 EST Saturday is 03:00Z; 04:00 EDT is 08:00Z.
      expectFrozenExactly(
        weekly("America/New_York", ["saturday"], "22:00", "04:00"),
        "2026-03-08T03:00:00Z",
        "2026-03-08T08:01:00Z",
      );
      // from 02:15 does not exist: the window starts at 03:00 EDT, 07:00Z.
      expectFrozenExactly(
        weekly("America/New_York", ["sunday"], "02:15", "05:00"),
        "2026-03-08T07:00:00Z",
        "2026-03-08T09:01:00Z",
      );
    });
  });

  describe("Australia/Sydney (southern): back from 03:00 AEDT to 02:00 AEST on 2026-04-05, forward from 02:00 to 03:00 on 2026-10-04", () => {
    it("a night window over the fall-back freezes both occurrences of 02:00-02:59", () => {
      // 22:00 AEDT Saturday is 11:00Z; 04:00 AEST is 18:00Z.
      expectFrozenExactly(
        weekly("Australia/Sydney", ["saturday"], "22:00", "04:00"),
        "2026-04-04T11:00:00Z",
        "2026-04-04T18:01:00Z",
      );
    });

    it("every instant of the repeated hour is frozen by a window bounded inside it", () => {
      // from 02:00 AEDT (15:00Z) to 02:59 AEST (16:59Z).
      expectFrozenExactly(
        weekly("Australia/Sydney", ["sunday"], "02:00", "02:59"),
        "2026-04-04T15:00:00Z",
        "2026-04-04T17:00:00Z",
      );
    });

    it("over the spring-forward, and with a bound in the skipped hour", () => {
      // 22:00 AEST Saturday is 12:00Z; 04:00 AEDT is 17:00Z.
      expectFrozenExactly(
        weekly("Australia/Sydney", ["saturday"], "22:00", "04:00"),
        "2026-10-03T12:00:00Z",
        "2026-10-03T17:01:00Z",
      );
      // to 02:30 does not exist: the last frozen minute is 03:00 AEDT, 16:00Z.
      expectFrozenExactly(
        weekly("Australia/Sydney", ["saturday"], "22:00", "02:30"),
        "2026-10-03T12:00:00Z",
        "2026-10-03T16:01:00Z",
      );
    });
  });

  describe("Australia/Lord_Howe, a 30-minute change: back from 02:00 to 01:30 on 2026-04-05, forward from 02:00 to 02:30 on 2026-10-04", () => {
    it("both occurrences of 01:30-01:59 are frozen", () => {
      // 22:00 (+11) Saturday is 11:00Z; 04:00 (+10:30) is 17:30Z.
      expectFrozenExactly(
        weekly("Australia/Lord_Howe", ["saturday"], "22:00", "04:00"),
        "2026-04-04T11:00:00Z",
        "2026-04-04T17:31:00Z",
      );
      // from 01:30 (+11, 14:30Z) to 01:59 (+10:30, 15:29Z).
      expectFrozenExactly(
        weekly("Australia/Lord_Howe", ["sunday"], "01:30", "01:59"),
        "2026-04-04T14:30:00Z",
        "2026-04-04T15:30:00Z",
      );
    });

    it("a bound in the skipped half hour moves to 02:30", () => {
      // from 02:10 does not exist: the window starts at 02:30 (+11), 15:30Z; 04:00 is 17:00Z.
      expectFrozenExactly(
        weekly("Australia/Lord_Howe", ["sunday"], "02:10", "04:00"),
        "2026-10-03T15:30:00Z",
        "2026-10-03T17:01:00Z",
      );
    });
  });
});

describe("when the freeze in force ends", () => {
  const night = weekly("Europe/Berlin", ["saturday"], "22:00", "03:59");
  const at = (iso: string) => freezeEndOf([night], new Date(iso))?.toISOString();

  it("on the fall-back night, at 04:00 CET from both occurrences of 02:30", () => {
    expect(at("2026-10-25T00:30:00Z")).toBe("2026-10-25T03:00:00.000Z"); // 02:30 CEST
    expect(at("2026-10-25T01:30:00Z")).toBe("2026-10-25T03:00:00.000Z"); // 02:30 CET
    expect(currentFreeze([night], new Date("2026-10-25T01:30:00Z"))).toEqual({
      until: "2026-10-25 04:00",
      zone: "Europe/Berlin",
      untilInstant: "2026-10-25T03:00:00.000Z",
      reason: "dst",
    });
  });

  it("on the spring-forward night, at 04:00 CEST; and with a bound in the skipped hour, after the gap", () => {
    expect(at("2026-03-28T23:00:00Z")).toBe("2026-03-29T02:00:00.000Z");
    const skipped = weekly("Europe/Berlin", ["saturday"], "22:00", "02:30");
    expect(freezeEndOf([skipped], new Date("2026-03-28T23:00:00Z"))?.toISOString()).toBe(
      "2026-03-29T01:01:00.000Z",
    );
  });

  it("runs on through a window that starts before another ends, and is none outside every window", () => {
    const evening = weekly("UTC", ["friday"], "18:00", "23:59");
    const early: FreezeWindow = {
      kind: "once",
      from: "2026-12-05T00:00:00Z",
      to: "2026-12-05T06:00:00Z",
      reason: "migration",
    };
    const freeze = currentFreeze([evening, early], new Date("2026-12-04T19:00:00Z"));
    expect(freeze).toEqual({
      until: "2026-12-05 06:00",
      zone: "UTC",
      untilInstant: "2026-12-05T06:00:00.000Z",
      reason: "dst",
    });
    expect(freezeEndOf([evening, early], new Date("2026-12-04T17:59:00Z"))).toBeUndefined();
    expect(currentFreeze([evening], new Date("2026-12-04T17:59:00Z"))).toBeUndefined();
  });
});
