// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { egp, environmentFile, type Run } from "../helpers/cli.ts";
import { useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A full read-side run at trace level, on an environment whose password comes from ${VAR} and a
 * user whose initialPassword does: no password and no session token may appear in any stdout,
 * stderr or written file (LESSONS 3).
 */

const SECRETS = {
  EGP_TEST_PASSWORD: "Adm1n#Secret-7781",
  EGP_NEW_USER_PASSWORD: "N3wUser#Secret-4402",
  EGP_EMBEDDED_PASSWORD: "Emb3dded#Secret-9913",
};
const { emulator } = useEmulator({ seed: "demo-prod", adminPassword: SECRETS.EGP_TEST_PASSWORD });
/** Every session token the emulator hands out; logout removes them from the store, so record them. */
const tokens = new Set<string>();

const MANIFESTS = [
  "kind: SecurityParameter",
  "name: General User Parameter",
  "minPasswordLength: 12",
  "---",
  "kind: User",
  "userName: newbie",
  "firstName: New",
  "lastName: Starter",
  "initialPassword: ${EGP_NEW_USER_PASSWORD}",
  "groups: [Everyone]",
  "---",
  "kind: User",
  "userName: anguyen",
  "firstName: Alice",
  "lastName: Nguyen",
  "title: Risk Manager",
  "",
].join("\n");

describe("no secret in any output", () => {
  let repo: string;
  const runs: Array<{ args: string[]; run: Run }> = [];

  beforeAll(async () => {
    const store = emulator().store;
    const open = store.openSession.bind(store);
    store.openSession = (userId) => {
      const session = open(userId);
      tokens.add(session.token);
      return session;
    };
    repo = await testdir({
      "environments/prod.yaml": environmentFile(emulator().url, ["groups: { Everyone: 1 }"]),
      "environments/dev.yaml": [
        "url: embedded:demo-dev",
        "auth: { password: '${EGP_EMBEDDED_PASSWORD}' }",
        "groups: { Everyone: 1 }",
        "",
      ].join("\n"),
      "manifests/all.yaml": MANIFESTS,
    });
    const trace = ["--log-level", "trace"];
    const commands = [
      ["validate"],
      ["plan", "--env", "prod"],
      ["plan", "--env", "prod", "--format", "markdown"],
      ["plan", "--env", "prod", "--format", "json"],
      ["plan", "--env", "prod", "--out", "prod.plan.json"],
      ["drift", "--env", "prod"],
      ["drift", "--env", "prod", "--format", "json"],
      ["export", "--env", "prod", "--out", "exported/prod"],
      ["plan", "--env", "dev", "--out", "dev.plan.json"],
      ["export", "--env", "dev", "--out", "exported/dev"],
    ];
    for (const args of commands)
      runs.push({ args, run: await egp([...args, ...trace], { cwd: repo, env: SECRETS }) });
  }, 180_000);

  it("ran every command, with trace logs, and saw sessions", () => {
    for (const { args, run } of runs)
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(args[0] === "drift" ? 2 : 0);
    const plan = runs.find(({ args }) => args.join(" ") === "plan --env prod");
    expect(plan?.run.stdout).toContain('+ User "newbie"');
    expect(plan?.run.stdout).toContain('+ password: "(sensitive)"');
    expect(plan?.run.stderr).toContain('"Password":"[redacted]"');
    // One login per command that reads the emulator: the check below has tokens to look for.
    expect(tokens.size).toBeGreaterThanOrEqual(7);
  });

  it("holds no password, and no session token, in stdout, stderr or a written file", async () => {
    const outputs = runs.flatMap(({ args, run }) => [
      { where: `${args.join(" ")} (stdout)`, text: run.stdout },
      { where: `${args.join(" ")} (stderr)`, text: run.stderr },
    ]);
    const written = ["prod.plan.json", "dev.plan.json"];
    for (const env of ["prod", "dev"])
      for (const file of await readdir(join(repo, "exported", env))) written.push(`exported/${env}/${file}`);
    expect(written).toHaveLength(6);
    for (const file of written) outputs.push({ where: file, text: await readFile(join(repo, file), "utf8") });

    for (const { where, text } of outputs) {
      for (const secret of [...Object.values(SECRETS), ...tokens]) expect(text, where).not.toContain(secret);
      // Tokens of the embedded emulators are not visible here: any token-shaped text is suspect.
      expect(text, where).not.toMatch(/(^|[^0-9A-Fa-f])[0-9A-F]{32}([^0-9A-Fa-f]|$)/);
    }
  });
});
