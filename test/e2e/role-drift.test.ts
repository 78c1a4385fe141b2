import { describe, expect, it } from "vitest";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Role assignments read back: where the instance answers the role reads, a role changed by a direct
 * call is drift, and apply puts it back; `roles:` in the environment file may be left out, and a
 * map entry the instance contradicts refuses the plan. Where the instance does not answer them,
 * drift says it can't check roles. demo-prod: roles 1 System Administrator, 2 General User,
 * 3 Auditor, 4 Risk Manager; bokafor does not exist there, dpatel holds General User.
 */

const PASSWORD = "Roles#Test2026";
const env = { EGP_TEST_PASSWORD: PASSWORD };

const USER = [
  "kind: User",
  "userName: dpatel",
  "firstName: Dev",
  "lastName: Patel",
  "roles: [General User]",
  "",
].join("\n");

async function live(raw: ReturnType<ReturnType<typeof useEmulator>["raw"]>) {
  const token = await raw.token("sysadmin", PASSWORD);
  const users = (await raw.read("/core/system/user", token)).body as Json[];
  const user = users.map((e) => e.RequestedObject).find((u) => u.UserName === "dpatel");
  return { token, user };
}

/** The manifest, with the user's names as the instance holds them, so that only roles can differ. */
async function repo(
  raw: ReturnType<ReturnType<typeof useEmulator>["raw"]>,
  url: string,
  extra: string[] = [],
) {
  const { user } = await live(raw);
  const manifest = USER.replace("firstName: Dev", `firstName: ${user.FirstName}`).replace(
    "lastName: Patel",
    `lastName: ${user.LastName}`,
  );
  return testdir({ "environments/prod.yaml": environmentFile(url, extra), "manifests/users.yaml": manifest });
}

async function setRole(
  raw: ReturnType<ReturnType<typeof useEmulator>["raw"]>,
  roleId: number,
  isAdd: boolean,
) {
  const { token, user } = await live(raw);
  const put = await raw.call("/core/system/userrole", {
    method: "PUT",
    token,
    body: { UserId: user.Id, RoleId: roleId, IsAdd: isAdd },
  });
  expect(put.body).toMatchObject({ IsSuccessful: true });
}

describe("role assignments as drift", () => {
  const { emulator, raw } = useEmulator({ seed: "demo-prod", adminPassword: PASSWORD });

  it("a role given by a direct call is drift, and apply takes it back (no roles map)", async () => {
    const dir = await repo(raw(), emulator().url);
    const clean = await egp(["drift", "--env", "prod"], { cwd: dir, env });
    expect(clean.stderr).toBe("");
    expect(clean.code).toBe(0);

    await setRole(raw(), 3, true);
    const drifted = await egp(["drift", "--env", "prod"], { cwd: dir, env });
    expect(drifted.stderr).toBe("");
    expect(drifted.code).toBe(2);
    expect(lines(drifted.stdout)).toContain('      ~ roles: ["General User","Auditor"] -> ["General User"]');

    const applied = await egp(["apply", "--env", "prod", "--yes"], { cwd: dir, env });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    const { token, user } = await live(raw());
    const roles = (await raw().read(`/core/system/role/user/${user.Id}`, token)).body as Json[];
    expect(roles.map((e) => e.RequestedObject.Name)).toEqual(["General User"]);
    expect((await egp(["drift", "--env", "prod"], { cwd: dir, env })).code).toBe(0);
    // Four runs of the CLI, one of them an apply: more than one run's share of the default timeout.
  }, 90_000);

  it("with a roles map that agrees, the same; one that disagrees refuses the plan naming both ids", async () => {
    const agrees = await repo(raw(), emulator().url, ["roles: { General User: 2, Auditor: 3 }"]);
    expect((await egp(["drift", "--env", "prod"], { cwd: agrees, env })).code).toBe(0);

    const wrong = await repo(raw(), emulator().url, ["roles: { General User: 2, Auditor: 4 }"]);
    const refused = await egp(["plan", "--env", "prod"], { cwd: wrong, env });
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toHaveLength(1);
    expect(refused.stderr).toContain(
      'environments/prod.yaml maps role "Auditor" to 4, but prod\'s role "Auditor" is 3 and its role 4 is "Risk Manager"',
    );
  });
});

describe("role assignments where the instance does not answer the role reads", () => {
  const { emulator, raw } = useEmulator({ seed: "demo-prod", adminPassword: PASSWORD, integrations: false });

  it("drift says it can't check roles, never a silent no drift", async () => {
    const dir = await repo(raw(), emulator().url, ["roles: { General User: 2, Auditor: 3 }"]);
    await setRole(raw(), 3, true);
    const run = await egp(["drift", "--env", "prod"], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(lines(run.stderr)).toEqual([
      expect.stringMatching(
        /^warning: environments\/prod\.yaml:1:1: can't check roles on prod: it does not answer the role reads \(core\/system\/role\), so 1 user's roles are written on apply but never compared/,
      ),
    ]);
    const plan = await egp(["plan", "--env", "prod"], { cwd: dir, env });
    expect(plan.stderr).toContain("can't check roles on prod");
    const status = await egp(["status", "--env", "prod"], { cwd: dir, env });
    expect(status.stderr).toContain("can't check roles on prod");
  });
});
