// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${P} here is environment-file text, not a template.
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { installPacked, npmEnv, packEgp, run } from "../helpers/pack.ts";

/*
 * A kind from outside egp, through the published package: egp is packed from a fresh copy of the
 * repository (no dist/, as a clone has none), the tarball installed into an empty project with npm,
 * and the project's own files (./plugin/) make a `GroupMember` kind with ops of its own, list it in
 * one call (`createKinds([...builtInKinds, groupMemberKind])`), plan it through `planEnvironment`,
 * save the plan to a file, apply it from the file through the governed `apply` against the emulator as `egp
 * apply FILE` does, export it, and prune it with a PrunePolicy made from the same kinds value.
 * demo-prod's groups: 3 is Auditors, and anguyen is not one; 4 is Risk Owners.
 */

const PASSWORD = "Plugin#Test2026";

let files: string[] = [];
let consumer = "";
let prod: Emulator;

beforeAll(async () => {
  const packed = await packEgp();
  files = packed.files;
  prod = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  consumer = await installPacked(packed.tarball, {
    "environments/prod.yaml": `url: ${prod.url}\ninstance: Default\nauth: { username: sysadmin, password: '\${P}' }\n`,
    "manifests/members.yaml": "kind: GroupMember\ngroup: Auditors\nuser: anguyen\n",
  });
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
