import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testdir } from "../../test/helpers/testdir.ts";
import { lockDigest, needsInstall } from "./install-egp.ts";

describe("needsInstall", () => {
  it("installs once per lock file: again only when the lock file changed", async () => {
    const root = await testdir({ "package-lock.json": '{"lockfileVersion":3}', "node_modules/.keep": "" });
    expect(needsInstall(root)).toBe(true);
    writeFileSync(join(root, "node_modules", ".egp-ci-installed"), `${lockDigest(root)}\n`);
    expect(needsInstall(root)).toBe(false);
    writeFileSync(join(root, "package-lock.json"), '{"lockfileVersion":3,"packages":{}}');
    expect(needsInstall(root)).toBe(true);
  });
});
