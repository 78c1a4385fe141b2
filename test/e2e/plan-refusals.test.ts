// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { beforeAll, describe, expect, it } from "vitest";
import { readPlanFile } from "../../src/plan/index.ts";
import { egp, exampleTree, lines, type Run } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * DESIGN §3, "Plan refuses what the platform will refuse": an initialPassword that the user's
 * security parameter, as the plan leaves it, will not accept fails `plan`, `drift` and `apply` at the
 * password's file:line:col, never printing it, and apply writes nothing. The example repository, on
 * embedded emulators that keep their state in .egp/ between runs, so that a write would show.
 */

// kmurphy gets Contractor Parameter, which the plan creates: 14 characters, 2 special ones.
const TOO_SHORT = "Sh0rt-pw";
// tnodigit gets the default, General User Parameter, which the plan makes want 12 characters, an
// upper-case and a lower-case letter, a digit and a special character.
const NO_DIGIT = "NoDigits-Here!x";
const GOOD = { KM_PASSWORD: "Contr@ctor#Pass99", TN_PASSWORD: "Every-day#Pass99" };

let repo: string;
let text: string;

/** 1-based line and column of `needle` in the users manifest. */
function position(needle: string): string {
  const index = text.split("\n").findIndex((line) => line.includes(needle));
  const column = (text.split("\n")[index] ?? "").indexOf(needle) + 1;
  return `${index + 1}:${column}`;
}

const run = (args: string[], env: Record<string, string>) => egp(args, { cwd: repo, env });

function expectNoSecret(result: Run, ...secrets: string[]): void {
  for (const secret of secrets) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
}

async function liveDigests(): Promise<{ live: string; liveParts: Record<string, string> }> {
  const result = await run(["plan", "--env", "local-prod", "--format", "json"], GOOD);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const { live, liveParts } = readPlanFile(result.stdout).digests;
  return { live, liveParts };
}

beforeAll(async () => {
  const tree = exampleTree();
  const users = tree["manifests/users.yaml"] ?? "";
  text = users.replace(
    "forcePasswordChange: true\n",
    'forcePasswordChange: true\ninitialPassword: "${KM_PASSWORD}"\n',
  );
  text += [
    "---",
    "kind: User",
    "userName: tnodigit",
    "firstName: Tess",
    "lastName: Nodigit",
    "initialPassword: ${TN_PASSWORD}",
    "",
  ].join("\n");
  expect(text).toContain("${KM_PASSWORD}");
  repo = await testdir({ ...tree, "manifests/users.yaml": text });
});

describe("a password the platform will refuse", () => {
  const bad = { KM_PASSWORD: TOO_SHORT, TN_PASSWORD: NO_DIGIT };
  const expected = () => [
    `egp: EGP_PLAN_INVALID manifests/users.yaml:${position('"${KM_PASSWORD}"')} users[3].initialPassword: the platform would refuse this password: its security parameter "Contractor Parameter", as this plan leaves it, requires at least 14 characters and at least 2 special characters`,
    `egp: EGP_PLAN_INVALID manifests/users.yaml:${position("${TN_PASSWORD}")} users[5].initialPassword: the platform would refuse this password: the default security parameter "General User Parameter", as this plan leaves it, requires at least 1 digit`,
  ];

  it("fails plan with exit 1 at the password's file:line:col, printing no password", async () => {
    const result = await run(["plan", "--env", "local-prod"], bad);
    expect(lines(result.stderr)).toEqual(expected());
    expect(result.stdout).toBe("");
    expect(result.code).toBe(1);
    expectNoSecret(result, TOO_SHORT, NO_DIGIT);
  });

  it("fails drift with exit 1 the same way (not 0 or 2)", async () => {
    const result = await run(["drift", "--env", "local-prod"], bad);
    expect(lines(result.stderr)).toEqual(expected());
    expect(result.code).toBe(1);
    expectNoSecret(result, TOO_SHORT, NO_DIGIT);
  });

  it("fails apply --yes before any write: the live state of both instances is unchanged", async () => {
    const before = await liveDigests();
    const result = await run(["apply", "--env", "local-prod", "--yes"], bad);
    expect(lines(result.stderr)).toEqual(expected());
    expect(result.code).toBe(1);
    expectNoSecret(result, TOO_SHORT, NO_DIGIT);
    expect(await liveDigests()).toEqual(before);
  });

  it("fails apply of a saved plan whose password no longer fits (digests leave secrets out)", async () => {
    const before = await liveDigests();
    const saved = await run(["plan", "--env", "local-prod", "--out", "plan.json"], GOOD);
    expect(saved.code).toBe(0);
    const result = await run(["apply", "--env", "local-prod", "plan.json"], bad);
    expect(lines(result.stderr)).toEqual(expected());
    expect(result.code).toBe(1);
    expectNoSecret(result, TOO_SHORT, NO_DIGIT);
    expect(await liveDigests()).toEqual(before);
  });

  it("plans as before once the passwords fit", async () => {
    const result = await run(["plan", "--env", "local-prod"], GOOD);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toContain('  + User "tnodigit"');
    expectNoSecret(result, GOOD.KM_PASSWORD, GOOD.TN_PASSWORD);
  });
});
