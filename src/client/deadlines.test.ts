import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Deadlines } from "./deadlines.ts";

describe("Deadlines", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("expires each try once its deadline passes, not before, in any order of arrival", () => {
    const deadlines = new Deadlines();
    const expired: string[] = [];
    const start = Date.now();
    deadlines.add(start + 300, () => expired.push("c"));
    deadlines.add(start + 100, () => expired.push("a"));
    deadlines.add(start + 200, () => expired.push("b"));
    vi.advanceTimersByTime(99);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(["a"]);
    vi.advanceTimersByTime(150);
    expect(expired).toEqual(["a", "b"]);
    vi.advanceTimersByTime(50);
    expect(expired).toEqual(["a", "b", "c"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a cleared try never expires, and no timer is left once none is in flight", () => {
    const deadlines = new Deadlines();
    const expire = vi.fn();
    const clearFirst = deadlines.add(Date.now() + 100, expire);
    const clearSecond = deadlines.add(Date.now() + 200, expire);
    clearFirst();
    clearFirst();
    vi.advanceTimersByTime(150);
    expect(expire).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(1);
    clearSecond();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(expire).not.toHaveBeenCalled();
  });

  it("a deadline already past expires on the next tick", () => {
    const deadlines = new Deadlines();
    const expire = vi.fn();
    deadlines.add(Date.now() - 5, expire);
    expect(expire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expire).toHaveBeenCalledTimes(1);
  });
});
