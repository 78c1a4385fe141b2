import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, environmentFile, exampleTree, lines } from "../helpers/cli.ts";
import { useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/* A new user's first mistakes: each error points at what to fix, in one `egp:` line. */

const PASSWORD = "FirstHour#Test2026";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };
const { emulator } = useEmulator({ seed: "empty", adminPassword: PASSWORD });

/** A loopback port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function oneLine(run: { code: number; stderr: string }): string {
  expect(run.code).toBe(1);
  expect(lines(run.stderr), run.stderr).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  return run.stderr;
}

describe("connecting to the instance", () => {
  it("https:// against a plain-HTTP port says the server doesn't speak TLS, and never suggests insecure", async () => {
    const https = emulator().url.replace(/^http:/, "https:");
    const dir = await testdir({ "environments/prod.yaml": environmentFile(https) });
    const line = oneLine(await egp(["plan", "--env", "prod"], { cwd: dir, env: ENV }));
    expect(line).toMatch(/^egp: EGP_TLS prod \(https:\/\/127\.0\.0\.1:\d+\): POST \S+login: /);
    expect(line).toContain("the server doesn't seem to speak TLS");
    expect(line).toContain("check the url's scheme: http:// for a plain-HTTP port, https:// for TLS");
    expect(line).not.toMatch(/insecure|certificate/);
  });

  it("nothing listening: names the environment and its url, hints where to look, and says so at once", async () => {
    const port = await closedPort();
    const dir = await testdir({ "environments/prod.yaml": environmentFile(`http://127.0.0.1:${port}`) });
    const line = oneLine(await egp(["plan", "--env", "prod"], { cwd: dir, env: ENV }));
    expect(line).toBe(
      `egp: EGP_CONNECTION prod (http://127.0.0.1:${port}): POST /platformapi/core/security/login: cannot connect ` +
        "(ECONNREFUSED: nothing is listening there); check that the instance is up and the url in environments/prod.yaml\n",
    );
    // Said at once: a refused first connection is not retried (the retries took 5 s).
    const traced = await egp(["plan", "--env", "prod", "--log-level", "debug"], { cwd: dir, env: ENV });
    expect(traced.stderr).toContain('"msg":"attempt failed"');
    expect(traced.stderr).not.toContain('"msg":"retrying"');
  });
});

describe("command-line usage", () => {
  it("a missing --env is an `egp:` line", async () => {
    const dir = await testdir({ "environments/prod.yaml": environmentFile(emulator().url) });
    const run = await egp(["plan"], { cwd: dir, env: ENV });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("egp: EGP_USAGE required option '--env <name>' not specified\n");
    const unknown = await egp(["plan", "--env", "prod", "--bogus"], { cwd: dir, env: ENV });
    expect(unknown.stderr).toBe("egp: EGP_USAGE unknown option '--bogus'\n");
  });

  it("apply plan.json takes the environment from the plan file; a different --env is refused", async () => {
    const dir = await testdir({
      ...exampleTree({ manifests: false }),
      "environments/prod.yaml": environmentFile(emulator().url),
      "manifests/params.yaml": "kind: SecurityParameter\nname: First Hour Parameter\nminPasswordLength: 12\n",
    });
    const planFile = join(dir, "plan.json");
    const planned = await egp(["plan", "--env", "prod", "--out", planFile], { cwd: dir, env: ENV });
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);

    const other = await egp(["apply", "--env", "local-dev", planFile], { cwd: dir, env: ENV });
    expect(oneLine(other)).toContain("is a plan for prod, not local-dev");

    const applied = await egp(["apply", planFile], { cwd: dir, env: ENV });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("Verified: prod matches the manifests.");
  });

  it("drift --detailed-exitcode is accepted: drift's exit codes already are 0, 1 and 2", async () => {
    const dir = await testdir({
      "environments/prod.yaml": environmentFile(emulator().url),
      "manifests/params.yaml": "kind: SecurityParameter\nname: Drift Parameter\nminPasswordLength: 12\n",
    });
    const run = await egp(["drift", "--env", "prod", "--detailed-exitcode"], { cwd: dir, env: ENV });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(2);
  });
});

describe("manifests", () => {
  it("an unknown key names the document and suggests the key meant", async () => {
    const dir = await testdir({
      "environments/prod.yaml": environmentFile(emulator().url),
      "manifests/users.yaml": "kind: User\nuserName: jdoe\nfirstNmae: Jane\nlastName: Doe\n",
    });
    const run = await egp(["validate"], { cwd: dir, env: ENV });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'manifests/users.yaml:3:1 users[0].firstNmae: unknown key "firstNmae" (User jdoe); did you mean "firstName"?',
    );
  });
});
