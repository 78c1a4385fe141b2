// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exampleTree, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/* The egp binary, run as a user runs it, on repositories written from inline file trees. */

const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "egp.js");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function egp(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  // A clean environment: only what the test gives, so that no variable of the machine leaks in.
  const env = { PATH: process.env.PATH ?? "", ...options.env };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const ENVIRONMENT = "url: embedded:empty\nroles: { General User: 2 }\ngroups: { Everyone: 1 }\n";

describe("egp validate", () => {
  it("passes on the project's own example", async () => {
    const run = await egp(["validate"]);
    expect(run).toEqual({ code: 0, stdout: "ok: 9 documents in 4 files, 2 environments\n", stderr: "" });
  });

  it("checks egp.yaml's release store, at its line and column", async () => {
    const good = await testdir({
      "egp.yaml": "releases:\n  store: oci://ghcr.io/acme/egp-releases\n",
      "environments/dev.yaml": ENVIRONMENT,
    });
    expect(await egp(["validate"], { cwd: good })).toMatchObject({ code: 0, stderr: "" });
    const bad = await testdir({
      "egp.yaml": "releases:\n  store: s3://bucket/egp\n",
      "environments/dev.yaml": ENVIRONMENT,
    });
    const run = await egp(["validate"], { cwd: bad });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)[0]).toBe(
      "egp.yaml:2:10 releases.store: expected a folder path or oci://host[:port]/repository (for HTTP, oci:// with plainHttp: true)",
    );
    expect(run.stderr).not.toContain("    at ");
  });

  it("refuses a Latin-1 byte or a NUL in a manifest at its file, line and column", async () => {
    const dir = await testdir({ "environments/dev.yaml": ENVIRONMENT });
    await mkdir(join(dir, "manifests"));
    const user = (name: Buffer) =>
      Buffer.concat([
        Buffer.from("kind: User\nuserName: jos\nfirstName: "),
        name,
        Buffer.from("\nlastName: D\n"),
      ]);
    await writeFile(join(dir, "manifests", "latin1.yaml"), user(Buffer.from("Jos\xe9", "latin1")));
    await writeFile(join(dir, "manifests", "nul.yaml"), user(Buffer.from("Jo\0se")));
    const run = await egp(["validate"], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(lines(run.stderr)).toEqual([
      "manifests/latin1.yaml:3:15: is not UTF-8 (a byte here decodes to U+FFFD): save the file as UTF-8",
      "manifests/nul.yaml:3:14: holds the control character U+0000, which YAML does not allow",
      "egp: EGP_MANIFEST_INVALID invalid: 2 errors",
    ]);
  });

  it("reports a type error with its file, line and column, one line, no stack, exit 1", async () => {
    const dir = await testdir({
      "environments/dev.yaml": ENVIRONMENT,
      "manifests/users.yaml": [
        "kind: User",
        "userName: jdoe",
        "firstName: Jane",
        "lastName: Doe",
        "status: enabled",
        "",
      ].join("\n"),
    });
    const run = await egp(["validate", "--dir", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      [
        "manifests/users.yaml:5:9 users[0].status: expected one of active, inactive, locked",
        "egp: EGP_MANIFEST_INVALID invalid: 1 error",
        "",
      ].join("\n"),
    );
  });

  it("never prints a secret: not a substituted password, not a literal one", async () => {
    const dir = await testdir({
      "environments/prod.yaml": [
        "url: https://grc.example.com",
        "instance: Production",
        "auth: { username: svc, password: '${EGP_PROD_PASSWORD}' }",
        "roles: { General User: 2 }",
        "",
      ].join("\n"),
      "manifests/users.yaml": [
        "kind: User",
        "userName: jdoe",
        "firstName: Jane",
        "lastName: Doe",
        "initialPassword: Literal#Secret9",
        "roles: ['${EGP_ROLE}']",
        "---",
        "kind: User",
        "userName: other",
        "firstName: O",
        "lastName: T",
        "initialPassword: ${EGP_MISSING}",
        "",
      ].join("\n"),
    });
    const env = { EGP_PROD_PASSWORD: "Prod#Secret7", EGP_ROLE: "Role#Secret8" };
    for (const args of [
      ["validate", "--dir", dir, "--env", "prod"],
      ["validate", "--dir", dir, "--env", "prod", "--json"],
    ]) {
      const run = await egp(args, { env });
      expect(run.code).toBe(1);
      const output = run.stdout + run.stderr;
      expect(output).toContain("environment variable EGP_MISSING is not set");
      for (const secret of ["Prod#Secret7", "Role#Secret8", "Literal#Secret9"])
        expect(output).not.toContain(secret);
    }
  });

  it("needs no secret without --env; --env, plan and apply need the environment's", async () => {
    // The README's real-instance environment, next to the example: a lint job has no EGP_PROD_PASSWORD.
    const dir = await testdir({
      ...exampleTree({ persist: false }),
      "environments/prod.yaml": [
        "url: https://127.0.0.1:9",
        "instance: Production",
        "auth: { username: svc_gitops, password: '${EGP_PROD_PASSWORD}' }",
        "packagesFrom: local-dev",
        "roles: { General User: 2, Risk Manager: 17, Auditor: 18 }",
        "",
      ].join("\n"),
    });
    const lint = await egp(["validate", "--dir", dir]);
    // Not an error without --env, but said where it is written.
    expect(lint).toEqual({
      code: 0,
      stdout: "ok: 9 documents in 4 files, 3 environments\n",
      stderr:
        "warning: environments/prod.yaml:3:41 auth.password: environment variable EGP_PROD_PASSWORD is not set here; plan and apply of this environment need it\n",
    });
    const missing =
      "environments/prod.yaml:3:41 auth.password: environment variable EGP_PROD_PASSWORD is not set";
    const one = await egp(["validate", "--dir", dir, "--env", "prod"]);
    expect(one.code).toBe(1);
    expect(lines(one.stderr)[0]).toBe(missing);
    for (const args of [
      ["plan", "--env", "prod"],
      ["apply", "--env", "prod", "--yes"],
    ]) {
      const run = await egp([...args, "--dir", dir]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(missing);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("prints JSON with --json", async () => {
    const ok = await egp(["validate", "--json"]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({
      ok: true,
      documents: 9,
      files: 4,
      environments: 2,
      warnings: [],
    });

    const dir = await testdir({ "environments/dev.yaml": "url: embedded:empty\nbogus: 1\n" });
    const bad = await egp(["validate", "--dir", dir, "--json"]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      ok: false,
      errors: [
        {
          file: "environments/dev.yaml",
          line: 2,
          column: 1,
          path: "bogus",
          severity: "error",
          message: 'unknown key "bogus"',
        },
      ],
    });
  });

  it("validates one environment with --env, and names an unknown one", async () => {
    const one = await egp(["validate", "--env", "local-prod"]);
    expect(one).toMatchObject({ code: 0, stdout: "ok: 9 documents in 4 files, 1 environment\n" });
    const unknown = await egp(["validate", "--env", "staging"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      "environments/staging.yaml: no such environment (known: local-dev, local-prod)\negp: EGP_MANIFEST_INVALID invalid: 1 error\n",
    );
  });

  it("refuses a --dir that is not a directory in one line", async () => {
    const run = await egp(["validate", "--dir", join(ROOT, "no-such-dir")]);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toMatch(/^egp: EGP_USAGE --dir: not a directory: .*no-such-dir\n$/);
  });
});

describe("egp schema", () => {
  it("writes the schemas that are committed under schema/", async () => {
    const dir = await testdir({});
    const run = await egp(["schema", "--out", join(dir, "out")]);
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n").filter(Boolean)).toHaveLength(2);
    for (const name of ["manifest.schema.json", "environment.schema.json"]) {
      const written = await readFile(join(dir, "out", name), "utf8");
      expect(written, `schema/${name} is stale: run npm run egp -- schema`).toBe(
        await readFile(join(ROOT, "schema", name), "utf8"),
      );
    }
  });
});
