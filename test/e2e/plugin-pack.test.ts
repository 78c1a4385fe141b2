// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${P} here is environment-file text, not a template.
import { execFile, execFileSync } from "node:child_process";
import { cp, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { ROOT } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A kind from outside egp, through the published package: egp is packed from a fresh copy of the
 * repository (no dist/, as a clone has none), the tarball installed into an empty project with npm,
 * and the project's own files (./plugin/) make a `GroupMember` kind with ops of its own, list it in
 * one call (`createKinds([...builtInKinds, groupMemberKind])`), plan it through `planEnvironment`,
 * save the plan to a file, apply it from the file through `applyPlan` against the emulator as `egp
 * apply FILE` does, export it, and prune it with a PrunePolicy made from the same kinds value.
 * demo-prod's groups: 3 is Auditors, and anguyen is not one; 4 is Risk Owners.
 */

const run = promisify(execFile);
const PASSWORD = "Plugin#Test2026";
/** What a clone has that the build and the package need; dist/ is left out on purpose. */
const SHIPPED = /^(src|bin|schema|scripts)\/|^(package\.json|tsconfig(\.build)?\.json|LICENSE|README\.md)$/;
const npmEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };

let files: string[] = [];
let consumer = "";
let prod: Emulator;

beforeAll(async () => {
  const clone = await testdir({});
  const tracked = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter((file) => SHIPPED.test(file) && !file.endsWith(".test.ts"));
  await Promise.all(tracked.map((file) => cp(join(ROOT, file), join(clone, file))));
  await symlink(join(ROOT, "node_modules"), join(clone, "node_modules"), "dir");

  const out = await testdir({});
  const packed = await run("npm", ["pack", "--json", "--pack-destination", out], { cwd: clone, env: npmEnv });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as {
    filename: string;
    files: { path: string }[];
  }[];
  if (!info) throw new Error(`npm pack printed no package: ${packed.stdout}`);
  files = info.files.map((file) => file.path);

  prod = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  consumer = await testdir({
    "package.json": '{ "name": "egp-plugin-consumer", "private": true, "type": "module" }\n',
    "environments/prod.yaml": `url: ${prod.url}\ninstance: Default\nauth: { username: sysadmin, password: '\${P}' }\n`,
    "manifests/members.yaml": "kind: GroupMember\ngroup: Auditors\nuser: anguyen\n",
  });
  // The npm cache holds egp's dependencies; the registry is asked only for what it lacks.
  await run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", join(out, info.filename)],
    { cwd: consumer, env: npmEnv },
  );
  await cp(join(import.meta.dirname, "plugin"), join(consumer, "plugin"), { recursive: true });
}, 300_000);

afterAll(async () => {
  await prod?.close();
});

describe("a kind from outside egp, through the published package", () => {
  it("is packed with its compiled library by npm pack from a fresh clone", () => {
    expect(files).toEqual(
      expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/bundle/main.js", "bin/egp.js"]),
    );
  });

  it("installs a working egp: the bin prints its version and the library imports", async () => {
    const version = await run(join(consumer, "node_modules", ".bin", "egp"), ["--version"], {
      cwd: consumer,
      env: npmEnv,
    });
    expect(version.stdout.trim()).toBe("0.1.0");
    expect(version.stderr).toBe("");
    const imported = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const egp = await import("egp"); console.log(typeof egp.createClient, typeof egp.planEnvironment, typeof egp.statusReport);',
      ],
      { cwd: consumer, env: npmEnv },
    );
    expect(imported.stdout.trim()).toBe("function function function");
  });

  it("lists the plugin's kind in one call, plans, applies its saved plan, exports and prunes it against the emulator", async () => {
    const applied = await run(
      process.execPath,
      [join(consumer, "plugin", "apply.mjs"), consumer, join(consumer, ".egp")],
      { cwd: consumer, env: { ...process.env, P: PASSWORD }, timeout: 60_000 },
    );
    const outcome = JSON.parse(applied.stdout);
    expect(outcome).toMatchObject({
      planned: [["GroupMember", "Auditors/anguyen", "update"]],
      ops: ["groupMember.add"],
      withoutKind: "EGP_PLAN_UNKNOWN_KIND",
      result: "complete",
      converged: true,
      after: 0,
    });
    expect(outcome.exported).toContain("anguyen");
    // Every membership the policy removes is one of Risk Owners: the others are managed or excluded.
    const pruned = outcome.pruned.planned as [string, string, string][];
    expect(pruned.length).toBeGreaterThan(0);
    expect(
      pruned.filter(
        ([kind, key, action]) =>
          kind !== "GroupMember" || !key.startsWith("Risk Owners/") || action !== "delete",
      ),
    ).toEqual([]);
    expect(outcome.pruned).toMatchObject({
      ops: ["groupMember.remove"],
      withoutKind: "EGP_PLAN_UNKNOWN_KIND",
      result: "complete",
      converged: true,
      after: 0,
    });

    const client = createClient({
      url: prod.url,
      instance: "Default",
      username: "sysadmin",
      password: PASSWORD,
      limits: { concurrency: 1, requestsPerSecond: 0 },
    });
    try {
      const anguyen = (await client.users.list()).find((user) => user.UserName === "anguyen");
      expect(await client.users.memberIds(3)).toContain(anguyen?.Id);
      expect(await client.users.memberIds(4)).toEqual([]);
    } finally {
      await client.close();
    }
  }, 90_000);
});
