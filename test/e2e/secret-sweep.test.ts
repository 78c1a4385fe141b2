// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { beforeAll, describe, expect, it } from "vitest";
import { egp, type Run } from "../helpers/cli.ts";
import { type FileTree, testdir } from "../helpers/testdir.ts";

/*
 * No secret in any message, since messages end up in CI logs. A marker password is written, as a literal and through
 * a variable, in auth.password and initialPassword, inside many broken files: malformed ${…}, wrong
 * types, bad YAML on its line and the next ones, unknown and missing keys, bad enums nearby. No
 * output of `egp validate` or `egp plan` may hold the marker or any 6-character piece of it.
 */

const MARK = "Mk9!zqvX-SECRET-7f3";
const PIECE = 6;

/** Every piece of the marker of PIECE characters or more (a longer piece holds a shorter one). */
const PIECES = Array.from({ length: MARK.length - PIECE + 1 }, (_, i) => MARK.slice(i, i + PIECE));

function leaks(text: string): string[] {
  return PIECES.filter((piece) => text.includes(piece));
}

/** Ways to write the secret value on its own line; each is broken, or is a literal that warns. */
const VALUES: Record<string, string> = {
  unclosedReference: '"Mk9!${zqvX-SECRET-7f3"',
  referenceOfWholeSecret: '"${Mk9!zqvX-SECRET-7f3}"',
  referenceNamingAPiece: '"Mk9!zqvX-${SECRET}-7f3"',
  referenceAtTheEnd: '"Mk9!zqvX-SECRET-7f3${"',
  malformedReferenceInside: '"Mk9!zqvX-${SECRET-7f3}"',
  plainMalformedReference: "Mk9!zqvX-${SECRET-7f3}",
  singleQuotedReference: "'Mk9!${zqvX}-SECRET-7f3'",
  emptyReference: '"Mk9!zqvX-SECRET${}-7f3"',
  unclosedDoubleQuote: '"Mk9!zqvX-SECRET-7f3',
  unclosedSingleQuote: "'Mk9!zqvX-SECRET-7f3",
  mappingInValue: "Mk9!zqvX-SECRET-7f3: oops",
  tag: "!Mk9zqvX-SECRET-7f3",
  alias: "*Mk9zqvX-SECRET-7f3",
  anchorOnly: "&Mk9zqvX-SECRET-7f3",
  badEscape: '"Mk9!zqvX-\\qSECRET-7f3"',
  blockHeader: "|Mk9!zqvX-SECRET-7f3",
  foldedHeader: ">-Mk9!zqvX-SECRET-7f3",
  list: "[Mk9!zqvX-SECRET-7f3]",
  mapping: "{ Mk9!zqvX-SECRET-7f3 }",
  number: "12345678",
  twoScalars: '"Mk9!zqvX-SECRET-7f3" "again"',
  reservedStart: "@Mk9zqvX-SECRET-7f3",
};

/** A broken line, or a break next to a good literal secret, as (secret line) → lines of the document. */
const NEARBY: Record<string, (secret: string) => string[]> = {
  badEnumNext: (s) => [s, "status: enabled"],
  unknownKeyNext: (s) => [s, "nickname: jd"],
  secretAsKeyNext: (s) => [s, "Mk9!zqvX-SECRET-7f3: x"],
  badIndentNext: (s) => [s, "   title: x"],
  tabIndentNext: (s) => [s, "\ttitle: x"],
  duplicateKey: (s) => [s, s],
  missingSpace: (s) => [s.replace(": ", ":")],
  sequenceUnder: (s) => [s, "  - item"],
  unresolvedAliasNext: (s) => [s, "title: *nope"],
};

const USER_HEAD = (n: string) => ["kind: User", `userName: u${n}`, "firstName: Ann", "lastName: Lee"];

function userFile(n: string, lines: string[]): string {
  return [...USER_HEAD(n), ...lines, ""].join("\n");
}

function environmentFile(lines: string[]): string {
  return [
    "url: https://grc.example.com",
    "instance: Production",
    "auth:",
    "  username: svc",
    ...lines,
    "",
  ].join("\n");
}

/** Flow-style documents, where a comma or a missing colon in the secret changes what is a key. */
const FLOW_USERS: Record<string, string> = {
  commaSplitsSecret:
    "{ kind: User, userName: uf1, firstName: A, lastName: B, initialPassword: Mk9!zqvX-, SECRET }",
  missingColon:
    "{ kind: User, userName: uf2, firstName: A, lastName: B, initialPassword Mk9!zqvX-SECRET-7f3 }",
  unclosedFlow:
    "{ kind: User, userName: uf3, firstName: A, lastName: B, initialPassword: Mk9!zqvX-SECRET-7f3",
  unquotedReference: "{ kind: User, userName: uf4, firstName: A, lastName: B, initialPassword: ${EGP_MARK} }",
  unquotedMalformed:
    "{ kind: User, userName: uf5, firstName: A, lastName: B, initialPassword: Mk9!${zqvX-SECRET} }",
  flowKeyIsSecret: "{ kind: User, userName: uf6, firstName: A, lastName: B, Mk9!zqvX-SECRET-7f3 }",
  // After a stray }, the parser's error token is the rest of the line.
  strayBrace:
    "kind: User\nuserName: uf7\nfirstName: A\nlastName: B\ninitialPassword: x\n}Mk9!zqvX-SECRET-7f3",
  directive:
    "%Mk9!zqvX-SECRET-7f3\n---\nkind: User\nuserName: uf8\nfirstName: A\nlastName: B\nstatus: enabled",
};

const FLOW_AUTH: Record<string, string> = {
  commaSplitsSecret: "auth: { username: svc, password: Mk9!zqvX-, SECRET }",
  missingColon: "auth: { username: svc, password Mk9!zqvX-SECRET-7f3 }",
  unclosedFlow: "auth: { username: svc, password: Mk9!zqvX-SECRET-7f3",
  unquotedReference: "auth: { username: svc, password: ${EGP_MARK} }",
  unquotedMalformed: "auth: { username: svc, password: Mk9!${zqvX-SECRET} }",
  unknownKeyNext: "auth: { username: svc, password: Mk9!zqvX-SECRET-7f3, passwrd: x }",
  credentialsInUrl:
    "auth: { username: svc, password: x }\nurl2: https://svc:Mk9!zqvX-SECRET-7f3@grc.example.com",
};

const EMBEDDED = "url: embedded:empty\n";

function sweepTree(): FileTree {
  const tree: FileTree = { "environments/good.yaml": EMBEDDED };
  let n = 0;
  const next = () => String(n++).padStart(3, "0");
  for (const value of Object.values(VALUES)) {
    tree[`manifests/v${next()}.yaml`] = userFile(String(n), [`initialPassword: ${value}`]);
    tree[`environments/e${next()}.yaml`] = environmentFile([`  password: ${value}`]);
  }
  for (const around of Object.values(NEARBY)) {
    for (const secret of [`initialPassword: ${MARK}`, 'initialPassword: "${EGP_MARK}"']) {
      tree[`manifests/v${next()}.yaml`] = userFile(String(n), around(secret));
    }
    for (const secret of [`  password: ${MARK}`, '  password: "${EGP_MARK}"']) {
      tree[`environments/e${next()}.yaml`] = environmentFile(
        around(secret).map((l) => l.replace(/^(?! )/, "  ")),
      );
    }
  }
  for (const text of Object.values(FLOW_USERS)) tree[`manifests/v${next()}.yaml`] = `${text}\n`;
  for (const text of Object.values(FLOW_AUTH))
    tree[`environments/e${next()}.yaml`] = `url: https://grc.example.com\ninstance: Production\n${text}\n`;
  // A list of a secret and a wrong type, through a variable.
  tree[`manifests/v${next()}.yaml`] = userFile(String(n), ['initialPassword: ["${EGP_MARK}"]']);
  tree[`environments/e${next()}.yaml`] = environmentFile([
    '  password: ["${EGP_MARK}"]',
    "  scheme: two words",
  ]);
  return tree;
}

const ENV = { EGP_MARK: MARK };
let tree: FileTree;
let repo: string;
let validate: Run;

beforeAll(async () => {
  tree = sweepTree();
  repo = await testdir(tree);
  validate = await egp(["validate"], { cwd: repo, env: ENV });
});

describe("no secret in any message", () => {
  it("egp validate reports every broken file, and no piece of the secret", async () => {
    expect(validate.code).toBe(1);
    const files = Object.keys(tree).filter((path) => path !== "environments/good.yaml");
    // Without --env an unset variable is no error (each environment sets its own): the files whose only fault is one
    // are checked where it is, with --env (a manifest for `good`, an environment for itself).
    const unset = files.filter((path) => !validate.stderr.includes(path));
    const runs = await Promise.all(
      unset.map((path) => {
        const env = path.startsWith("environments/") ? path.slice(13, -5) : "good";
        return egp(["validate", "--env", env], { cwd: repo, env: ENV });
      }),
    );
    const silent = unset.filter((path, index) => !runs[index]?.stderr.includes(path));
    expect(silent, "files without an error: the sweep would test nothing there").toEqual([]);
    const outputs = [validate, ...runs].map((run) => run.stdout + run.stderr).join("\n");
    expect(leaks(outputs)).toEqual([]);
  });

  it("egp plan reports the broken manifests, and no piece of the secret", async () => {
    const run = await egp(["plan", "--env", "good"], { cwd: repo, env: ENV });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("manifests/v000.yaml");
    expect(leaks(run.stdout + run.stderr)).toEqual([]);
  });

  it("egp plan of broken environments fails without a piece of the secret", async () => {
    // plan reads an environment file as validate does; a sample of every eighth one, two at a time.
    const environments = Object.keys(tree)
      .filter((path) => /^environments\/e\d+\.yaml$/.test(path))
      .map((path) => path.slice("environments/".length, -".yaml".length))
      .filter((_, index) => index % 8 === 0);
    const runs: Run[] = [];
    for (let i = 0; i < environments.length; i += 2) {
      const pair = environments.slice(i, i + 2);
      runs.push(
        ...(await Promise.all(pair.map((env) => egp(["plan", "--env", env], { cwd: repo, env: ENV })))),
      );
    }
    expect(runs.map((run) => run.code)).toEqual(environments.map(() => 1));
    expect(leaks(runs.map((run) => run.stdout + run.stderr).join("\n"))).toEqual([]);
  });

  it("a refused login and a refused initialPassword name no piece of it either", async () => {
    const valid = await testdir({
      "environments/embedded.yaml": `${EMBEDDED}auth: { username: sysadmin, password: "\${EGP_MARK}" }\n`,
      "environments/good.yaml": EMBEDDED,
      "manifests/users.yaml": [
        "kind: SecurityParameter",
        "name: Strict",
        "minPasswordLength: 40",
        "---",
        ...USER_HEAD("1"),
        "securityParameter: Strict",
        `initialPassword: "${MARK}"`,
        "---",
        ...USER_HEAD("2"),
        "securityParameter: Strict",
        'initialPassword: "${EGP_MARK}"',
        "",
      ].join("\n"),
    });
    const login = await egp(["plan", "--env", "embedded"], { cwd: valid, env: ENV });
    const refused = await egp(["plan", "--env", "good"], { cwd: valid, env: ENV });
    expect(login.code).toBe(1);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("users[1].initialPassword");
    expect(leaks([login, refused].map((run) => run.stdout + run.stderr).join("\n"))).toEqual([]);
  });
});
