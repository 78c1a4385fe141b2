import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/* A user error is exit 1 and one line on stderr, never a stack, whatever the command. */

const PASSWORD = "Errors#Test2026";
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

const COMMANDS: string[][] = [
  ["plan", "--env", "prod"],
  ["drift", "--env", "prod"],
  ["export", "--env", "prod", "--out", "exported"],
];

function expectOneLine(run: { code: number; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(run.code).toBe(1);
  expect(run.stdout).toBe("");
  expect(lines(run.stderr), run.stderr).toHaveLength(1);
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

describe("egp plan, drift and export fail in one line", () => {
  it.each(COMMANDS)("%s: an unknown environment", async (...args) => {
    const dir = await testdir({ "environments/dev.yaml": "url: embedded:empty\n" });
    const run = await egp(args, { cwd: dir });
    expectOneLine(
      run,
      /^egp: EGP_MANIFEST_INVALID environments\/prod\.yaml: no such environment \(known: dev\)\n$/,
    );
  });

  it.each(COMMANDS)("%s: an unreachable URL", async (...args) => {
    const port = await closedPort();
    const dir = await testdir({ "environments/prod.yaml": environmentFile(`http://127.0.0.1:${port}`) });
    const run = await egp(args, { cwd: dir, env: { EGP_TEST_PASSWORD: PASSWORD } });
    expectOneLine(run, new RegExp(`^egp: EGP_CONNECTION .*127\\.0\\.0\\.1:${port}.*\\n$`));
  });

  it.each(COMMANDS)("%s: bad credentials, without echoing the password", async (...args) => {
    const dir = await testdir({ "environments/prod.yaml": environmentFile(emulator().url) });
    const wrong = "Not#The2026Password";
    const run = await egp(args, { cwd: dir, env: { EGP_TEST_PASSWORD: wrong } });
    expectOneLine(run, /^egp: EGP_LOGIN_FAILED .*not valid/);
    expect(run.stderr).not.toContain(wrong);
  });
});

describe("file system failures are one line", () => {
  it("apply of a plan file that does not exist", async () => {
    const dir = await testdir({ "environments/prod.yaml": "url: embedded:empty\n" });
    const run = await egp(["apply", "--env", "prod", "missing-plan.json"], { cwd: dir });
    expectOneLine(
      run,
      /^egp: EGP_FILE_SYSTEM cannot open .*missing-plan\.json: no such file or directory \(ENOENT\)\n$/,
    );
  });
});
