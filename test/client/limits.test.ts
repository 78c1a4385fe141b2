import { describe, expect, it } from "vitest";
import { RateLimiter, Semaphore } from "../../src/client/limits.ts";

describe("Semaphore", () => {
  it("never lets more than its size through, and serves waiters in order", async () => {
    const semaphore = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const work = async (n: number) => {
      const release = await semaphore.acquire();
      active += 1;
      peak = Math.max(peak, active);
      order.push(n);
      await new Promise((resolve) => setTimeout(resolve, 5));
      active -= 1;
      release();
    };
    await Promise.all([1, 2, 3, 4, 5, 6].map(work));
    expect(peak).toBe(2);
    expect(order).toEqual([1, 2, 3, 4, 5, 6]);
    expect(semaphore.inFlight).toBe(0);
  });

  it("serves a long queue in arrival order as it drains and refills", async () => {
    const semaphore = new Semaphore(1);
    const order: number[] = [];
    const work = async (n: number) => {
      const release = await semaphore.acquire();
      order.push(n);
      await Promise.resolve();
      release();
    };
    const first = Array.from({ length: 50 }, (_, i) => work(i));
    await Promise.all(first.slice(0, 20));
    const second = Array.from({ length: 30 }, (_, i) => work(50 + i));
    await Promise.all([...first, ...second]);
    expect(order).toEqual(Array.from({ length: 80 }, (_, i) => i));
    expect(semaphore.inFlight).toBe(0);
  });

  it("ignores a second release of the same slot", async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    release();
    release();
    expect(semaphore.inFlight).toBe(0);
    await semaphore.acquire();
    expect(semaphore.inFlight).toBe(1);
  });
});

describe("RateLimiter", () => {
  it("spaces concurrent reservations one interval apart", () => {
    let now = 1_000;
    const limiter = new RateLimiter(4, () => now);
    expect([limiter.reserve(), limiter.reserve(), limiter.reserve()]).toEqual([0, 250, 500]);
    now += 1_000;
    expect(limiter.reserve()).toBe(0);
  });

  it("waits through the injected sleep", async () => {
    let now = 0;
    const waits: number[] = [];
    const limiter = new RateLimiter(
      10,
      () => now,
      async (ms) => {
        waits.push(ms);
        now += ms;
      },
    );
    for (let i = 0; i < 4; i++) await limiter.acquire();
    expect(waits).toEqual([100, 100, 100]);
  });

  it("does not limit when the rate is 0", () => {
    const limiter = new RateLimiter(0, () => 0);
    expect([limiter.reserve(), limiter.reserve()]).toEqual([0, 0]);
  });
});
