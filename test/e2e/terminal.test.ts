// biome-ignore-all lint/suspicious/noControlCharactersInRegex: the assertions are about terminal escapes.
import { describe, expect, it } from "vitest";
import { egp, exampleTree } from "../helpers/cli.ts";
import { COLOUR, egpOnPty, screenOf } from "../helpers/pty.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * egp on a real terminal (a pseudo-terminal from util-linux `script`): colours, the live view of
 * apply, warnings in words; and off a terminal, the plain log CI keeps.
 */

const example = () => testdir(exampleTree({ persist: false }));

/**
 * The example with local-prod's install jobs slowed by the emulator's own fault spec, so that the
 * live view redraws the running step with its time going up.
 */
function slowInstalls(): Promise<string> {
  const tree = exampleTree({ persist: false });
  const prod = "environments/local-prod.yaml";
  const slowed = (tree[prod] ?? "").replace(/^url: (embedded:demo-prod)$/m, "url: $1?faults=installMs=1200");
  if (slowed === tree[prod]) throw new Error(`${prod} has no url: embedded:demo-prod line to slow`);
  tree[prod] = slowed;
  return testdir(tree);
}

describe("apply on a terminal", () => {
  it("colours, redraws one line per running step with its time and transfer, then the summary", async () => {
    const run = await egpOnPty(["apply", "--env", "local-prod", "--yes"], {
      cwd: await slowInstalls(),
    });
    const screen = screenOf(run.raw);
    expect(run.code, screen).toBe(0);
    expect(run.raw).toMatch(COLOUR);
    const plain = run.raw.replace(/\x1b\[[0-9;]*m/g, "");
    // The running install, redrawn in place (cursor up, clear) with its elapsed time going up.
    const install = [
      ...plain.matchAll(
        /⋯ Package\/GRC Core#install \(local-prod\) (\d+ ms|\d+\.\d s) {2}waiting for the install job/g,
      ),
    ].map((match) => match[1]);
    expect(new Set(install).size).toBeGreaterThan(3);
    expect(install.some((time) => time?.endsWith(" s"))).toBe(true);
    expect(run.raw).toMatch(/\x1b\[1A\x1b\[J/);
    // A transfer: a bar with bytes, in units that fit (a small package is not "0.0 MiB"); its rate
    // shows once some time has passed (live-view.test.ts).
    expect(plain).toMatch(/downloading \[[█░]{12}\] \d+(\.\d)? (B|KiB|MiB) of \d+(\.\d)? (B|KiB|MiB)/);
    // What stays on the screen: the plan, a line per finished step, the summary; no running line.
    expect(screen).toContain('+ status: "active"');
    expect(screen).toMatch(/✓ Package\/GRC Core#install \(local-prod\) done in \d\.\d s/);
    expect(screen).toMatch(/✓ User\/kmurphy#create \(local-prod\) done in \d+ ms/);
    expect(screen).not.toContain("⋯");
    expect(screen).not.toContain("waiting for the install job");
    expect(screen).toMatch(
      /\n\nApply complete: 2 added, 3 changed, 0 destroyed, 1 promoted\.\nVerified: local-prod matches the manifests\.$/,
    );
    if (process.env.EGP_SHOW_SCREEN) process.stdout.write(`${screen}\n`);
  });

  it("NO_COLOR takes the colours away and keeps the live view", async () => {
    const run = await egpOnPty(["apply", "--env", "local-prod", "--yes"], {
      cwd: await example(),
      env: { NO_COLOR: "1" },
    });
    expect(run.code, run.raw).toBe(0);
    expect(run.raw).not.toMatch(COLOUR);
    expect(screenOf(run.raw)).toMatch(/✓ Package\/GRC Core#verify \(local-prod\) done in/);
  });
});

describe("colours", () => {
  it("--no-color takes them away on a terminal; FORCE_COLOR gives them off one", async () => {
    const dir = await example();
    const coloured = await egpOnPty(["plan", "--env", "local-prod"], { cwd: dir });
    expect(coloured.raw).toMatch(/\x1b\[32m {6}\+ firstName: "Kieran"\x1b\[39m/);
    const plain = await egpOnPty(["--no-color", "plan", "--env", "local-prod"], { cwd: dir });
    expect(plain.raw).toContain('+ firstName: "Kieran"');
    expect(plain.raw).not.toMatch(COLOUR);

    const piped = await egp(["plan", "--env", "local-prod"], { cwd: dir });
    expect(piped.stdout).not.toMatch(COLOUR);
    const forced = await egp(["plan", "--env", "local-prod"], { cwd: dir, env: { FORCE_COLOR: "1" } });
    expect(forced.stdout).toMatch(COLOUR);
  });
});

describe("warnings on a terminal", () => {
  it("are sentences, not JSON log records; off a terminal they stay JSON for machines", async () => {
    const dir = await testdir({
      "environments/dev.yaml": [
        "url: https://127.0.0.1:9",
        "instance: Default",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: manifest text, not a template.
        "auth: { username: svc, password: '${EGP_DEV_PASSWORD}' }",
        "tls: { insecure: true }",
        "",
      ].join("\n"),
    });
    const env = { EGP_DEV_PASSWORD: "x" };
    const run = await egpOnPty(["plan", "--env", "dev"], { cwd: dir, env });
    const screen = screenOf(run.raw);
    expect(screen).toMatch(
      /^warning: TLS certificate verification is off \(insecure\): .* \(url: https:\/\/127\.0\.0\.1:9\)$/m,
    );
    expect(screen).not.toContain('{"level"');
    expect(run.code).toBe(1);

    const piped = await egp(["plan", "--env", "dev", "--dir", dir], { env });
    expect(piped.stderr).toMatch(/^\{"level":40,.*"msg":"TLS certificate verification is off/m);
  });
});

describe("apply off a terminal", () => {
  it("keeps the one-line-per-event log, without escapes", async () => {
    const applied = await egp(["apply", "--env", "local-prod", "--yes"], {
      cwd: await slowInstalls(),
    });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/^Package\/GRC Core#install \(local-prod\): started$/m);
    // A wait says how long the step has run, so that two of them are not the same line.
    const waits = applied.stdout.match(
      /^Package\/GRC Core#install \(local-prod\): waiting for the install job \((\d+ ms|\d+\.\d s) since the step started\)$/gm,
    );
    expect(waits?.length).toBeGreaterThan(1);
    expect(new Set(waits).size).toBe(waits?.length);
    // A small package in units that fit, not "0.0 MiB of 0.0 MiB".
    expect(applied.stdout).toMatch(/: downloading \d+(\.\d)? (B|KiB) of \d+(\.\d)? (B|KiB) \(\d+%\)$/m);
    expect(applied.stdout).not.toContain("0.0 MiB");
    expect(applied.stdout).toMatch(/^Package\/GRC Core#install \(local-prod\): done in \d+ ms$/m);
    expect(applied.stdout).not.toContain("\x1b");
  });
});
