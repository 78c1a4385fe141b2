// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { describe, expect, it } from "vitest";
import { formatManifestError, validateRepository } from "../../src/manifest/index.ts";

/*
 * No secret in any message (messages end up in CI logs), exhaustively and in-process (the CLI prints
 * these same issues, one a line; see test/e2e/secret-sweep.test.ts for the binary): a marker
 * password, broken by one YAML or `${…}` character at every position, written as auth.password and
 * as initialPassword, in block and flow style, plain and quoted. No message or warning may hold 6 characters of it.
 */

const MARK = "Mk9!zqvX-SECRET-7f3";
const PIECES = Array.from({ length: MARK.length - 5 }, (_, i) => MARK.slice(i, i + 6));
const BREAKERS = [
  "${",
  "}",
  "${}",
  "$${",
  ",",
  ": ",
  '"',
  "'",
  "#",
  "!",
  "*",
  "&",
  "|",
  ">",
  "{",
  "[",
  "]",
  "\\",
  "%",
  "@",
  "`",
];

function variants(): string[] {
  const values = new Set<string>();
  for (const breaker of BREAKERS)
    for (let at = 0; at <= MARK.length; at++) values.add(`${MARK.slice(0, at)}${breaker}${MARK.slice(at)}`);
  return [...values];
}

const QUOTES = [(v: string) => v, (v: string) => `"${v}"`, (v: string) => `'${v}'`];

interface Placement {
  environment: (value: string) => string;
  manifest?: (value: string) => string;
}

const USER = "kind: User\nuserName: jdoe\nfirstName: Jane\nlastName: Doe\n";
const REAL = "url: https://grc.example.com\ninstance: Production\n";

const PLACEMENTS: Placement[] = [
  {
    environment: (v) => `${REAL}auth:\n  username: svc\n  password: ${v}\n`,
    manifest: (v) => `${USER}initialPassword: ${v}\n`,
  },
  {
    environment: (v) => `${REAL}auth: { username: svc, password: ${v} }\n`,
    manifest: (v) =>
      `{ kind: User, userName: jdoe, firstName: Jane, lastName: Doe, initialPassword: ${v} }\n`,
  },
  {
    environment: (v) =>
      `${REAL}auth: { username: svc, password: ${v}, scheme: Platform }\nlimits: { concurrency: x }\n`,
  },
];

function messagesOf(environment: string, manifest: string | undefined): string[] {
  const result = validateRepository(
    {
      dir: "/repo",
      environments: [{ path: "environments/prod.yaml", text: environment }],
      manifests: manifest ? [{ path: "manifests/users.yaml", text: manifest }] : [],
    },
    { variables: { EGP_MARK: MARK }, fileExists: () => true },
  );
  return [...(result.ok ? [] : result.errors), ...result.warnings].map(formatManifestError);
}

describe("no piece of a broken secret in any message", () => {
  it("holds for every breaking character at every position, every placement and quoting", () => {
    const leaked: string[] = [];
    let files = 0;
    for (const value of variants())
      for (const quote of QUOTES)
        for (const placement of PLACEMENTS) {
          const written = quote(value);
          const messages = messagesOf(placement.environment(written), placement.manifest?.(written));
          files += 1;
          for (const message of messages)
            if (PIECES.some((piece) => message.includes(piece))) leaked.push(`${written} → ${message}`);
        }
    expect(files).toBeGreaterThan(3000);
    expect(leaked).toEqual([]);
  });

  it("the check finds a piece when a message holds one", () => {
    // The same predicate on a message that quotes part of the secret, so that the sweep can fail.
    const message = `environments/prod.yaml:5:13 auth.password: \${${MARK.slice(4)}} is not a variable reference`;
    expect(PIECES.some((piece) => message.includes(piece))).toBe(true);
  });
});
