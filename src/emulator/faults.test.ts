import { describe, expect, it } from "vitest";
import { NO_FAULTS, parseFaultSpec } from "./faults.ts";

describe("parseFaultSpec", () => {
  it("sets one kind of package job's duration over jobMs, and leaves the rest as without faults", () => {
    expect(parseFaultSpec("installMs=1200")).toEqual({ ...NO_FAULTS, installMs: 1200 });
    expect(parseFaultSpec("jobMs=50,generateMs=10,installMs=900")).toMatchObject({
      jobMs: 50,
      generateMs: 10,
      installMs: 900,
    });
  });

  it("names where the spec was given in its errors", () => {
    expect(() => parseFaultSpec("installMs=slow")).toThrow(
      '--faults: installMs needs a whole number, got "slow"',
    );
    expect(() => parseFaultSpec("nap=1", "environments/dev.yaml: url: faults=")).toThrow(
      'environments/dev.yaml: url: faults=: unknown key "nap"',
    );
  });
});
