// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testdir } from "../../test/helpers/testdir.ts";
import { changedFiles, useBase } from "./base-environments.ts";

const PROD =
  'url: https://grc.example.com\ninstance: Production\nauth: { username: svc, password: "${EGP_PROD_PASSWORD}" }\n';

describe("a pull request's preview reads the base branch's environment files", () => {
  it("a PR that points prod's url at its own host is found, and the preview gets the base's file", async () => {
    const base = await testdir({ "environments/prod.yaml": PROD, "manifests/a.yaml": "kind: User\n" });
    const head = await testdir({
      "environments/prod.yaml": PROD.replace("grc.example.com", "attacker.example"),
      "environments/extra.yaml": "url: https://other.example\n",
      "manifests/a.yaml": "kind: User\nchanged: yes\n",
    });
    expect(changedFiles(head, base)).toEqual(["environments/extra.yaml", "environments/prod.yaml"]);
    useBase(head, base);
    expect(readFileSync(join(head, "environments/prod.yaml"), "utf8")).toBe(PROD);
    expect(() => readFileSync(join(head, "environments/extra.yaml"))).toThrow();
    // The manifests are the PR's: they are what the preview is for.
    expect(readFileSync(join(head, "manifests/a.yaml"), "utf8")).toContain("changed: yes");
    expect(changedFiles(head, base)).toEqual([]);
  });

  it("an egp.yaml the PR adds or edits counts as a change; untouched files do not", async () => {
    const base = await testdir({ "environments/prod.yaml": PROD });
    const head = await testdir({ "environments/prod.yaml": PROD, "egp.yaml": "releases: { store: ./x }\n" });
    expect(changedFiles(head, base)).toEqual(["egp.yaml"]);
    writeFileSync(join(base, "egp.yaml"), "releases: { store: ./x }\n");
    expect(changedFiles(head, base)).toEqual([]);
  });
});
