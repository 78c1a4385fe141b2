// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { describe, expect, it } from "vitest";
import { egp } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * What egp prints never depends on whether a string a manifest chose equals a secret: a value from
 * `${VAR}` is shown by its reference where it lands, and every other string as written (escaped).
 * Redacting a string because it equals a secret would let one pull request test guesses.
 */

const GUESSES = "candidates: letmein | hunter2 | Password1! | Summer2026";

describe("a pull request that guesses a secret", () => {
  it("gets its own text back in the preview, and the variable's value only as its reference", async () => {
    const dir = await testdir({
      "environments/dev.yaml": "url: embedded:empty\nroles: { General User: 2 }\n",
      "manifests/users.yaml": [
        "kind: User",
        "userName: guesser",
        "firstName: ${EGP_FIRST_NAME}",
        `lastName: "${GUESSES}"`,
        "roles: [General User]",
        "",
      ].join("\n"),
    });
    const env = { EGP_FIRST_NAME: "hunter2", EGP_EMULATOR_PASSWORD: "Password1!" };
    for (const format of ["text", "markdown"]) {
      const run = await egp(["plan", "--env", "dev", "--format", format, "--dir", dir], { env });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(GUESSES);
      expect(run.stdout).toContain("${EGP_FIRST_NAME}");
      expect(run.stdout).not.toContain("[redacted]");
    }
  });
});

describe("an error naming a url", () => {
  it("is not cut where a character equals a one-character password", async () => {
    const dir = await testdir({
      "environments/dev.yaml":
        "url: http://127.0.0.1:9\ninstance: Default\nauth: { username: svc, password: '${EGP_DEV_PASSWORD}' }\n",
    });
    const run = await egp(["plan", "--env", "dev", "--dir", dir], { env: { EGP_DEV_PASSWORD: "1" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("http://127.0.0.1:9");
    expect(run.stderr).not.toContain("[redacted]");
  });
});
