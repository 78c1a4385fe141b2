// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { formatManifestError } from "./errors.ts";
import { Secret } from "./secret.ts";
import { expandString, substituteDocument } from "./substitute.ts";
import { parseYamlFile } from "./yaml-source.ts";

function documentOf(text: string) {
  const [document] = parseYamlFile("environments/prod.yaml", text).documents;
  if (!document) throw new Error("no document");
  return document;
}

describe("expandString", () => {
  it("substitutes every reference in a string", () => {
    expect(expandString("${A}-${B}", { A: "1", B: "2" })).toEqual({
      text: "1-2",
      failures: [],
      values: ["1", "2"],
    });
  });

  it("keeps other dollars, and $${ writes a literal ${", () => {
    expect(expandString("pa$word $${NOT} $5", {}).text).toBe("pa$word ${NOT} $5");
  });

  it("does not parse the substituted value again", () => {
    expect(expandString("${A}", { A: "${B}" }).text).toBe("${B}");
  });

  it("reports a missing variable, a malformed name and an unclosed reference", () => {
    expect(expandString("${NOPE}", {}).failures).toEqual([{ kind: "missing", name: "NOPE" }]);
    expect(expandString("${A:-x}", {}).failures[0]?.kind).toBe("malformed");
    expect(expandString("${A", {}).failures[0]?.kind).toBe("malformed");
  });

  it("treats an empty variable as set", () => {
    expect(expandString("${EMPTY}", { EMPTY: "" })).toEqual({ text: "", failures: [], values: [""] });
  });
});

describe("substituteDocument", () => {
  it("substitutes string values anywhere, but not keys, and records where", () => {
    const document = documentOf("auth:\n  password: ${PW}\nroles:\n  ${ROLE}: 2\nlist: [a, '${X}']\n");
    const issues = substituteDocument(document, { PW: "s3cret", ROLE: "r", X: "x" });
    expect(issues).toEqual([]);
    expect(document.value).toEqual({
      auth: { password: "s3cret" },
      roles: { "${ROLE}": 2 },
      list: ["a", "x"],
    });
    expect([...document.substituted.keys()]).toEqual(["auth.password", "list[1]"]);
  });

  it("a missing variable is an error that names it and where it is used, never a value", () => {
    const document = documentOf("url: https://x\nauth:\n  password: ${EGP_PROD_PASSWORD}\n");
    const issues = substituteDocument(document, { OTHER: "visible-value" });
    expect(issues.map(formatManifestError)).toEqual([
      "environments/prod.yaml:3:13 auth.password: environment variable EGP_PROD_PASSWORD is not set",
    ]);
    // The reference stays as written, so that validation does not add a second error for it.
    expect(document.value).toMatchObject({ auth: { password: "${EGP_PROD_PASSWORD}" } });
  });

  it("never quotes a malformed reference: in a literal secret, the text around ${ is the secret", () => {
    const document = documentOf(
      'auth:\n  password: "Mk9!${zqvX-SECRET}"\ninstance: "${a b}"\nurl: "https://${HOST"\n',
    );
    const messages = substituteDocument(document, {}).map(formatManifestError);
    expect(messages).toEqual([
      "environments/prod.yaml:2:13 auth.password: a ${…} that is not a variable reference (a name is letters, digits and _, defaults are not supported); write $${ for a literal ${",
      "environments/prod.yaml:3:11 instance: a ${…} that is not a variable reference (a name is letters, digits and _, defaults are not supported); write $${ for a literal ${",
      "environments/prod.yaml:4:6 url: a ${ without its closing }; write $${ for a literal ${",
    ]);
    expect(messages.join("\n")).not.toMatch(/zqvX|SECRET|a b|HOST/);
  });

  it("names a missing variable inside a secret only when it is the whole value", () => {
    const document = documentOf(
      'auth:\n  password: "Mk9!zqvX-${SECRET}-7f3"\nkind: User\ninitialPassword: ${EGP_PW}\nurl: "https://${HOST}/grc"\n',
    );
    expect(substituteDocument(document, {}).map((issue) => `${issue.path}: ${issue.message}`)).toEqual([
      "auth.password: a ${…} in this secret names an environment variable that is not set; write $${ for a literal ${",
      "initialPassword: environment variable EGP_PW is not set",
      "url: environment variable HOST is not set",
    ]);
  });

  it("prefixes paths with the document's name", () => {
    const document = documentOf("kind: User\ninitialPassword: ${NOPE}\n");
    const [issue] = substituteDocument(document, {}, ["users", 2]);
    expect(issue?.path).toBe("users[2].initialPassword");
  });
});

describe("Secret", () => {
  it("reveals its value only on request", () => {
    const secret = new Secret("hunter2");
    expect(secret.reveal()).toBe("hunter2");
    expect(String(secret)).toBe("[redacted]");
    expect(`${secret}`).toBe("[redacted]");
    expect(JSON.stringify({ secret })).toBe('{"secret":"[redacted]"}');
    expect(inspect({ secret })).not.toContain("hunter2");
  });
});
