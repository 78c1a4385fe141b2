import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { readPlanFile } from "../../src/plan/index.ts";
import { egp, environmentFile, exampleOnEmulators, lines } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Deleting one object on purpose (`ensure: absent`), protecting others (PrunePolicy
 * `exclude`), and planning a subset (`--target`, a saved partial plan), run as a user runs egp,
 * against emulators over HTTP.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };

const startOne = emulatorsPerTest();

async function emulator(seed: string): Promise<Emulator> {
  return startOne({ seed });
}

function usernames(instance: Emulator): string[] {
  return instance.store
    .allUsers()
    .map((u) => u.user.UserName.toLowerCase())
    .sort();
}

/** A repository with one environment, prod, on `prod`, and these manifest files. */
function repository(prod: Emulator, manifests: Record<string, string>): Promise<string> {
  const tree: Record<string, string> = {
    "environments/prod.yaml": environmentFile(prod.url, ["roles: { General User: 2 }"]),
  };
  for (const [name, text] of Object.entries(manifests)) tree[`manifests/${name}`] = text;
  return testdir(tree);
}

describe("ensure: absent", () => {
  it("deletes that one user, loudly and with no flag; the other unmanaged users stay", async () => {
    const prod = await emulator("demo-prod");
    const before = usernames(prod);
    expect(before).toContain("dpatel");
    const dir = await repository(prod, { "users.yaml": "kind: User\nuserName: DPatel\nensure: absent\n" });

    const plan = await egp(["plan", "--env", "prod", "--dir", dir], { env: ENV });
    expect(plan.stderr).toBe("");
    const out = lines(plan.stdout);
    expect(out).toContain('  # User "dpatel" will be DELETED (manifests/users.yaml:2:11)');
    expect(out).toContain("      # ensure: absent in the manifests");
    expect(out.at(-1)).toBe("Plan: 0 to add, 0 to change, 1 to destroy, 0 to promote.");

    const applied = await egp(["apply", "--env", "prod", "--yes", "--dir", dir], { env: ENV });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("Apply complete: 0 added, 0 changed, 1 destroyed, 0 promoted.");
    expect(usernames(prod)).toEqual(before.filter((name) => name !== "dpatel"));
  });

  it("is refused at plan time, at its position, for the account egp logs in as", async () => {
    const prod = await emulator("demo-prod");
    const dir = await repository(prod, {
      "users.yaml": "# the login\nkind: User\nuserName: sysadmin\nensure: absent\n",
    });
    const plan = await egp(["plan", "--env", "prod", "--dir", dir], { env: ENV });
    expect(plan.code).toBe(1);
    expect(lines(plan.stderr)).toEqual([
      'egp: EGP_PLAN_INVALID manifests/users.yaml:3:11 users[0].userName: "sysadmin" is the account egp logs in as to prod; it can\'t be deleted',
    ]);
    expect(usernames(prod)).toContain("sysadmin");
  });
});

describe("PrunePolicy exclude", () => {
  it("keeps the excluded user when users: delete prunes the others", async () => {
    const prod = await emulator("demo-prod");
    const dir = await repository(prod, {
      "users.yaml": "kind: User\nuserName: breakglass-ops\nfirstName: Break\nlastName: Glass\n",
    });
    const created = await egp(["apply", "--env", "prod", "--yes", "--dir", dir], { env: ENV });
    expect(created.code).toBe(0);
    expect(usernames(prod)).toContain("breakglass-ops");

    // The user leaves the manifests; the policy now deletes unmanaged users, but not break-glass ones.
    writeFileSync(
      join(dir, "manifests/users.yaml"),
      "kind: PrunePolicy\nusers: delete\nexclude:\n  users: [BreakGlass*]\n",
    );
    const plan = await egp(["plan", "--env", "prod", "--dir", dir], { env: ENV });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Excluded, never pruned (PrunePolicy exclude): User "breakglass-ops".');
    expect(plan.stdout).not.toContain('User "breakglass-ops" will be DELETED');
    expect(plan.stdout).toContain('User "dpatel" will be DELETED');

    const applied = await egp(["apply", "--env", "prod", "--yes", "--dir", dir], { env: ENV });
    expect(applied.code).toBe(0);
    // sysadmin is egp's own login, never pruned.
    expect(usernames(prod)).toEqual(["breakglass-ops", "sysadmin"]);
  });
});

describe("--target", () => {
  it("plan --target User/kmurphy on the example plans only kmurphy, and the parameter it needs", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url });
    const args = ["plan", "--env", "local-prod", "--target", "User/kmurphy", "--dir", dir];
    const text = await egp(args, { env: ENV });
    expect(text.stderr).toBe("");
    expect(lines(text.stdout)[0]).toMatch(
      /^partial plan: 1 of \d+ objects targeted \(--target User\/kmurphy\)$/,
    );
    expect(text.stdout).toContain('  + User "kmurphy"');
    expect(text.stdout).toContain("# not targeted: a targeted change depends on it");
    expect(lines(text.stdout).at(-1)).toBe("Plan: 2 to add, 0 to change, 0 to destroy, 0 to promote.");

    const json = await egp([...args, "--format", "json"], { env: ENV });
    const plan = readPlanFile(json.stdout);
    // Without the target: a package promoted, a parameter and two users updated (test/e2e/plan.test.ts).
    expect(plan.changes.map((c) => `${c.action} ${c.id}`)).toEqual([
      "create SecurityParameter/Contractor Parameter",
      "create User/kmurphy",
    ]);
    expect(plan.options.targets).toEqual(["User/kmurphy"]);
    expect(plan.unmanaged.filter((u) => u.kind === "User")).toEqual([]);
  });

  it("a saved targeted plan applies only its targets, and is stale only when a target changed", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url });
    const planFile = join(dir, "kmurphy.plan.json");
    const saved = await egp(
      ["plan", "--env", "local-prod", "--target", "user/KMURPHY", "--out", planFile, "--dir", dir],
      { env: ENV },
    );
    expect(saved.code).toBe(0);
    const stale = join(dir, "anguyen.plan.json");
    await egp(["plan", "--env", "local-prod", "--target", "User/anguyen", "--out", stale, "--dir", dir], {
      env: ENV,
    });

    // Another user's manifest changes after the plan was saved: not one of its targets.
    const users = join(dir, "manifests/users.yaml");
    writeFileSync(users, readFileSync(users, "utf8").replace("title: Risk Manager", "title: Head of Risk"));

    const applied = await egp(["apply", "--env", "local-prod", planFile, "--dir", dir], { env: ENV });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("Apply complete: 2 added, 0 changed, 0 destroyed, 0 promoted.");
    expect(applied.stdout).toContain("Verified: the targeted objects of local-prod match the manifests.");
    expect(usernames(prod)).toContain("kmurphy");

    // Nothing else was applied: the whole plan still promotes the package and updates the others.
    const rest = readPlanFile(
      (await egp(["plan", "--env", "local-prod", "--format", "json", "--dir", dir], { env: ENV })).stdout,
    );
    expect(rest.changes.map((c) => `${c.action} ${c.id}`)).toEqual([
      "promote Package/GRC Core",
      "update SecurityParameter/General User Parameter",
      "update User/anguyen",
      "update User/cmendes",
    ]);

    // The plan for anguyen, whose manifest changed since, is stale.
    const refused = await egp(["apply", "--env", "local-prod", stale, "--dir", dir], { env: ENV });
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toHaveLength(1);
    expect(refused.stderr).toContain("is stale: the manifests or environment files changed");
  });
});

describe("--manifests, drift --target and export --target", () => {
  it("loads only the manifest files a glob matches, and refuses a glob that matches none", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url });
    const base = ["plan", "--env", "local-prod", "--format", "json", "--dir", dir];
    const run = await egp([...base, "--manifests", "security-*.yaml"], { env: ENV });
    expect(run.stderr).toBe("");
    const plan = readPlanFile(run.stdout);
    expect(plan.changes.map((c) => `${c.action} ${c.id}`)).toEqual([
      "update SecurityParameter/General User Parameter",
      "create SecurityParameter/Contractor Parameter",
    ]);
    expect(plan.options.manifests).toEqual(["security-*.yaml"]);

    const none = await egp([...base, "--manifests", "manifests/nothing/*.yaml"], { env: ENV });
    expect(none.code).toBe(1);
    expect(lines(none.stderr)).toEqual([
      'egp: EGP_MANIFEST_INVALID manifests/: --manifests "manifests/nothing/*.yaml" matches no manifest file',
    ]);
  });

  it("drift --target reports only its targets; export --target writes only them", async () => {
    const [dev, prod] = await Promise.all([emulator("demo-dev"), emulator("demo-prod")]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url });
    const drift = (...more: string[]) =>
      egp(["drift", "--env", "local-prod", "--dir", dir, ...more], { env: ENV });
    expect((await drift()).code).toBe(2);
    const inSync = await drift("--target", "User/hwright");
    expect(inSync.code).toBe(0);
    expect(lines(inSync.stdout)[0]).toMatch(
      /^partial plan: 1 of \d+ objects targeted \(--target User\/hwright\)$/,
    );
    expect((await drift("--target", "User/anguyen")).code).toBe(2);

    const out = join(dir, "exported");
    const exported = await egp(
      ["export", "--env", "local-prod", "--out", out, "--target", "User/a*", "--dir", dir],
      { env: ENV },
    );
    expect(exported.stderr).toBe("");
    expect(exported.stdout).toMatch(/^wrote .*users\.yaml: 1 user\n$/);
    expect(readFileSync(join(out, "users.yaml"), "utf8")).toContain("userName: anguyen");
    expect(existsSync(join(out, "security-parameters.yaml"))).toBe(false);
  });
});
