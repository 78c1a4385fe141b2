import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The CLI has egp's own kinds only (it loads no code from the repository it plans): a plan that a
 * library caller made with a plugin kind is refused by name when the CLI is asked to apply it,
 * before anything is read from or written to an instance.
 */

const PLAN = {
  formatVersion: 1,
  id: "0123456789abcdef",
  environment: "prod",
  createdAt: "2026-12-05T00:00:00.000Z",
  digests: { manifests: "m", live: "l", liveParts: {} },
  options: { allowDelete: false, enforceRoles: false },
  changes: [
    {
      id: "Widget/w1",
      kind: "Widget",
      key: "w1",
      action: "create",
      fields: [],
      notes: [],
      destructive: false,
    },
  ],
  steps: [
    {
      id: "Widget/w1#create",
      change: "Widget/w1",
      op: "widget.create",
      environment: "prod",
      dependsOn: [],
      input: {},
    },
  ],
  unmanaged: [],
  excluded: [],
  summary: { add: 1, change: 0, destroy: 0, promote: 0, drift: 0 },
};

describe("a saved plan of a kind the CLI lacks", () => {
  it("is refused by egp apply FILE in one line, exit 1, naming the kind", async () => {
    const dir = await testdir({ "environments/prod.yaml": "url: https://127.0.0.1:9\ninstance: Default\n" });
    await writeFile(join(dir, "widget.plan.json"), JSON.stringify(PLAN));
    const applied = await egp(["apply", "widget.plan.json", "--dir", dir], { cwd: dir });
    expect(applied).toMatchObject({ code: 1, stdout: "" });
    expect(applied.stderr).toContain(
      'egp: EGP_PLAN_UNKNOWN_KIND widget.plan.json: not a usable plan file (it names the kind "Widget", which this process does not have (its kinds: SecurityParameter, User, Package, Record); apply it with the kinds it was planned with)',
    );
    expect(applied.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});
