// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { egp, environmentFile, exampleTree, lines } from "../helpers/cli.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/* `egp export` writes manifests from live state; a following plan must show no changes. */

function documents(text: string): Json[] {
  return parseAllDocuments(text).map((doc) => doc.toJS());
}

describe("egp export then egp plan, on the example's environments", () => {
  let repo: string;
  const exports: Record<string, { code: number; stdout: string; stderr: string }> = {};

  beforeAll(async () => {
    // Environments only, with their state kept in the temp repository between runs.
    repo = await testdir(exampleTree({ manifests: false }));
    for (const env of ["local-dev", "local-prod"])
      exports[env] = await egp(["export", "--env", env, "--out", `manifests/${env}`], { cwd: repo });
  }, 60_000);

  it("writes one file per kind and says so", () => {
    expect(exports["local-dev"]).toEqual({
      code: 0,
      stdout:
        "wrote manifests/local-dev/security-parameters.yaml: 3 security parameters\n" +
        "wrote manifests/local-dev/users.yaml: 8 users\n" +
        "  left out User sysadmin: the account egp logs in with, so that no edit locks egp out (--include-login-user writes it)\n",
      stderr: "",
    });
    expect(exports["local-prod"]?.code).toBe(0);
  });

  it.each(["local-dev", "local-prod"])(
    "plan --env %s shows no changes (--detailed-exitcode 0)",
    async (env) => {
      const run = await egp(["plan", "--env", env, "--detailed-exitcode"], { cwd: repo });
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(lines(run.stdout)[0]).toBe(`No changes. ${env} matches the manifests.`);
    },
  );

  it("passes egp validate", async () => {
    const run = await egp(["validate"], { cwd: repo });
    expect(run).toEqual({ code: 0, stdout: "ok: 20 documents in 4 files, 2 environments\n", stderr: "" });
  });

  it("scopes every document to its environment and writes no roles or passwords", async () => {
    const users = documents(await readFile(join(repo, "manifests/local-prod/users.yaml"), "utf8"));
    const parameters = documents(
      await readFile(join(repo, "manifests/local-prod/security-parameters.yaml"), "utf8"),
    );
    for (const doc of [...users, ...parameters]) expect(doc.environments).toEqual(["local-prod"]);
    for (const user of users) {
      expect(user).not.toHaveProperty("roles");
      expect(user).not.toHaveProperty("initialPassword");
    }
    // Groups by name through the environment's map, contacts in words, the parameter by name.
    expect(users.find((u) => u.userName === "anguyen")).toMatchObject({
      kind: "User",
      firstName: "Alice",
      lastName: "Nguyen",
      title: "Senior Risk Manager",
      status: "active",
      securityParameter: "General User Parameter",
      groups: ["Everyone", "Risk Owners"],
      contacts: [
        { type: "email", subType: "business", value: "anguyen@example.com", default: true },
        { type: "phone", subType: "mobile", value: "+1 555 0100", default: true },
        { type: "phone", subType: "business2", value: "+1 555 0101" },
      ],
    });
    expect(users.find((u) => u.userName === "dpatel")).toMatchObject({ status: "inactive" });
    expect(parameters.map((p) => p.name)).toEqual([
      "Default Administrative User",
      "General User Parameter",
      "Services Parameter",
    ]);
    expect(parameters[2]).toMatchObject({ sessionTimeout: { value: 8, unit: "hours" }, type: 2 });
  });

  it("exits 1 with one line when --out can't be written", async () => {
    await writeFile(join(repo, "a-file"), "");
    const run = await egp(["export", "--env", "local-dev", "--out", "a-file/sub"], { cwd: repo });
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(/^egp: EGP_FILE_SYSTEM --out: cannot write .*a-file\/sub \(ENOTDIR\)\n$/);
  });
});

describe("egp export of values a manifest must escape or leave out", () => {
  const PASSWORD = "Export#Test2026";
  const env = { EGP_TEST_PASSWORD: PASSWORD, HOME: "/should/not/appear" };
  const { emulator, raw } = useEmulator({ seed: "empty", adminPassword: PASSWORD });
  let repo: string;

  beforeAll(async () => {
    const token = await raw().token("sysadmin", PASSWORD);
    const ok = (response: { body: Json; text: string }) =>
      expect(response.body, response.text).toMatchObject({ IsSuccessful: true });
    ok(
      await raw().call("/core/system/securityparameter", {
        method: "POST",
        token,
        body: {
          Name: "Odd Parameter",
          Description: "costs ${HOME} and $${x}: # not a comment\nsecond line",
          MinPasswordLength: 9,
          LockoutPeriod: 2,
          LockoutPeriodType: 3,
          IsLimitByTimeFrame: true,
          PermittedFromTime: "2026-01-01T07:30:00",
          PermittedToTime: "2026-01-01T19:00:15",
          IsDisallowedByDays: true,
          DisallowedSessionDays: [64, 1, 8],
          IsDisallowedByDates: true,
          DisallowedDates: [{ LockedDate: "2026-12-26T00:00:00" }, { LockedDate: "2026-12-25T00:00:00" }],
        },
      }),
    );
    const created = await raw().call("/core/system/user", {
      method: "POST",
      token,
      body: {
        User: {
          FirstName: "Odd",
          LastName: "User",
          UserName: "odd.user",
          Title: "yes",
          Address: "1 Main St\n#2",
        },
        Password: "Odd#User2026pw",
      },
    });
    ok(created);
    const users = await raw().read("/core/system/user", token);
    const user = (users.body as Json[]).map((e) => e.RequestedObject).find((u) => u.UserName === "odd.user");
    ok(
      await raw().call("/core/system/user", {
        method: "PUT",
        token,
        body: {
          User: user,
          Contacts: [
            { ContactType: 9, ContactSubType: 9, IsDefault: true, Value: "+44 20 7946 0000" },
            { ContactType: 9, ContactSubType: 3, IsDefault: false, Value: "+44 20 7946 0001" },
          ],
        },
      }),
    );
    ok(
      await raw().call("/core/system/securityparameter", {
        method: "POST",
        token,
        body: { Name: "Mismatched Parameter", IsDisallowedByDays: false, DisallowedSessionDays: [2] },
      }),
    );
    // Legacy data that today's interface would refuse: an e-mail contact that is not an address.
    const legacy = emulator().store.userByName("sysadmin");
    legacy?.contacts.push({
      Id: 999,
      ContactType: 7,
      ContactSubType: 2,
      IsDefault: true,
      Value: "admin at corp",
    });
    repo = await testdir({
      "environments/prod.yaml": environmentFile(emulator().url, ["groups: { Everyone: 1 }"]),
    });
  });

  it("round-trips: plan shows no changes, with warnings for what was left out", async () => {
    const run = await egp(["export", "--env", "prod", "--out", "manifests/live", "--include-login-user"], {
      cwd: repo,
      env,
    });
    expect(run.code).toBe(0);
    // What a manifest can't hold stays unmanaged, and says so.
    expect(lines(run.stderr)).toEqual([
      'warning: SecurityParameter "Mismatched Parameter": disallowedDays left out (the flag and the days disagree)',
      'warning: User "sysadmin": contacts left out (an email contact is not an address)',
    ]);
    const text = await readFile(join(repo, "manifests/live/security-parameters.yaml"), "utf8");
    expect(text).toContain("$${HOME}");
    const odd = documents(text).find((p) => p.name === "Odd Parameter");
    expect(odd).toMatchObject({
      lockoutPeriod: { value: 2, unit: "days" },
      limitByTimeFrame: true,
      permittedFrom: "07:30",
      permittedTo: "19:00:15",
      disallowedDays: ["sunday", "wednesday", "saturday"],
      disallowedDates: ["2026-12-25", "2026-12-26"],
    });
    const users = documents(await readFile(join(repo, "manifests/live/users.yaml"), "utf8"));
    expect(users.find((u) => u.userName === "odd.user")).toMatchObject({
      title: "yes",
      address: "1 Main St\n#2",
      groups: ["Everyone"],
      contacts: [
        { type: "phone", subType: "mobile", value: "+44 20 7946 0000", default: true },
        { type: "phone", subType: "business2", value: "+44 20 7946 0001" },
      ],
    });
    expect(users.find((u) => u.userName === "sysadmin")).not.toHaveProperty("contacts");

    const plan = await egp(["plan", "--env", "prod", "--detailed-exitcode"], { cwd: repo, env });
    expect(plan.stdout).toContain("No changes.");
    expect(plan).toMatchObject({ code: 0, stderr: "" });
  });
});

describe("egp export of a second environment into the same folder", () => {
  it("keeps the first one's documents: alike ones list both environments, the rest stay scoped", async () => {
    const repo = await testdir(exampleTree({ manifests: false, persist: false }));
    const out = "manifests/exported";
    const prod = await egp(["export", "--env", "local-prod", "--out", out], { cwd: repo });
    expect(prod.code).toBe(0);
    const dev = await egp(["export", "--env", "local-dev", "--out", out], { cwd: repo });
    expect(dev).toMatchObject({ code: 0, stderr: "" });

    const users = documents(await readFile(join(repo, out, "users.yaml"), "utf8"));
    // The line says what was read and what the merged file now holds.
    expect(lines(dev.stdout)).toContain(
      `wrote ${out}/users.yaml: ${users.filter((u) => (u.environments as string[]).includes("local-dev")).length} users (merged: ${users.length} documents in the file)`,
    );
    const onProd = users.filter((u) => (u.environments as string[]).includes("local-prod"));
    const onDev = users.filter((u) => (u.environments as string[]).includes("local-dev"));
    expect(onProd.length).toBeGreaterThan(0);
    expect(onDev.length).toBeGreaterThan(0);
    // Each user once per environment, whichever document holds it.
    const names = (list: Json[]) => list.map((u) => String(u.userName).toLowerCase());
    expect(new Set(names(onProd)).size).toBe(onProd.length);
    expect(new Set(names(onDev)).size).toBe(onDev.length);
    expect(users.some((u) => (u.environments as string[]).length === 2)).toBe(true);

    // Exporting prod again changes nothing: its documents are replaced by the same ones.
    const before = await readFile(join(repo, out, "users.yaml"), "utf8");
    expect((await egp(["export", "--env", "local-prod", "--out", out], { cwd: repo })).code).toBe(0);
    expect(await readFile(join(repo, out, "users.yaml"), "utf8")).toBe(before);

    for (const env of ["local-dev", "local-prod"]) {
      const run = await egp(["plan", "--env", env, "--detailed-exitcode"], { cwd: repo });
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(lines(run.stdout)[0]).toBe(`No changes. ${env} matches the manifests.`);
    }
  }, 120_000);

  it("refuses, writing nothing, a file whose documents are not scoped to environments", async () => {
    const handWritten = "kind: User\nuserName: someone\nfirstName: Some\nlastName: One\n";
    const repo = await testdir({
      ...exampleTree({ manifests: false, persist: false }),
      "manifests/exported/users.yaml": handWritten,
    });
    const run = await egp(["export", "--env", "local-prod", "--out", "manifests/exported"], { cwd: repo });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "egp: EGP_EXPORT_MERGE manifests/exported/users.yaml: User someone is not scoped to environments, so it can't gain or lose one; write to another --out\n",
    );
    expect(await readFile(join(repo, "manifests/exported/users.yaml"), "utf8")).toBe(handWritten);
  }, 60_000);
});

describe("egp export into a folder with local edits", () => {
  it("refuses to overwrite them, listing each, unless --force; documents stay sorted by name", async () => {
    const repo = await testdir(exampleTree({ manifests: false }));
    const out = ["export", "--env", "local-prod", "--out", "manifests"];
    expect((await egp(out, { cwd: repo })).code).toBe(0);
    const file = join(repo, "manifests/users.yaml");
    const before = await readFile(file, "utf8");
    const edited = before.replace(/^title: .*$/m, "title: Chief Editor");
    expect(edited).not.toBe(before);
    await writeFile(file, edited);
    const first = documents(edited)[0]?.userName;

    const refused = await egp(out, { cwd: repo });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `egp: EGP_EXPORT_OVERWRITE export: the files hold what the instance does not, which this export would overwrite (manifests/users.yaml: User ${first}: title); plan to see the difference, or pass --force to overwrite\n`,
    );
    expect(await readFile(file, "utf8")).toBe(edited);

    const forced = await egp([...out, "--force"], { cwd: repo });
    expect(forced.code).toBe(0);
    const names = documents(await readFile(file, "utf8")).map((d) => String(d.userName));
    expect(names[0]).toBe(first);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, "en")));
    expect(await readFile(file, "utf8")).toBe(before);
  });
});
