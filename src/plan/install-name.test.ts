import { describe, expect, it } from "vitest";
import { installName } from "./install-name.ts";

describe("installName", () => {
  it("names an install by its id and the release it installed, never as a release", () => {
    expect(installName({ id: "9c01d2e7f3a4", release: "2026-11-r1", package: { name: "GRC Core" } })).toBe(
      "install 9c01d2e7f3a4 of release 2026-11-r1",
    );
  });

  it("names a live promotion's install by its package, quoted, and where it came from", () => {
    expect(
      installName({ id: "9c01d2e7f3a4", package: { name: 'GRC "Core"' }, sourceEnvironment: "dev" }),
    ).toBe('install 9c01d2e7f3a4 of package "GRC \\"Core\\"" from dev');
  });
});
