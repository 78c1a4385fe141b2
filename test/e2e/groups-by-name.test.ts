import { describe, expect, it } from "vitest";
import { egp, exampleTree, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The example environments have no `groups:` map: egp resolves group names by reading
 * the instance's groups, and a name the instance does not have fails `plan` with exit 1 at the
 * name's file:line:col, one line, no stack.
 */

describe("group names in an environment without a groups map", () => {
  it("plan resolves them on the instance; an unknown one is a plan error at its position", async () => {
    const tree = exampleTree({ persist: false });
    const users = tree["manifests/users.yaml"] ?? "";
    expect(tree["environments/local-prod.yaml"]).not.toMatch(/^groups:/m);
    const ok = await egp(["plan", "--env", "local-prod"], { cwd: await testdir(tree) });
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);

    const typo = users.replace("groups: [Everyone, Auditors]", "groups: [Everyone, Auditorz]");
    expect(typo).not.toBe(users);
    const row = typo.split("\n").findIndex((line) => line.includes("Auditorz"));
    const column = (typo.split("\n")[row] ?? "").indexOf("Auditorz") + 1;
    const repo = await testdir({ ...tree, "manifests/users.yaml": typo });
    const result = await egp(["plan", "--env", "local-prod"], { cwd: repo });
    expect(lines(result.stderr)).toEqual([
      `egp: EGP_PLAN_INVALID manifests/users.yaml:${row + 1}:${column} users[1].groups[1]: group "Auditorz" does not exist on local-prod (its groups: Everyone, Administrators, Auditors, Risk Owners)`,
    ]);
    expect(result.stdout).toBe("");
    expect(result.code).toBe(1);
  });
});
