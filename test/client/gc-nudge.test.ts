import { describe, expect, it } from "vitest";
import { exposedMinorGc, gcNudger } from "../../src/client/gc-nudge.ts";

describe("gcNudger: a young-generation collection every few MiB of a transfer", () => {
  it("collects once per `everyBytes`, counting across chunks", () => {
    let collections = 0;
    const nudge = gcNudger(() => {
      collections += 1;
    }, 1000);
    for (let i = 0; i < 25; i++) nudge(100);
    expect(collections).toBe(2);
    nudge(600);
    expect(collections).toBe(3);
  });

  it("does nothing when no collector is at hand", () => {
    const nudge = gcNudger(null, 10);
    expect(() => nudge(1000)).not.toThrow();
  });

  it("finds the runtime's collector without putting gc on the global scope", () => {
    const before = "gc" in globalThis;
    const collect = exposedMinorGc();
    expect(collect).toBeTypeOf("function");
    expect(() => collect?.()).not.toThrow();
    expect("gc" in globalThis).toBe(before);
  });
});
