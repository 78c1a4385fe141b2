import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { FreezeWindowDocument, normalizeFreezeWindow } from "../../src/manifest/freeze.ts";
import { parseFreezeException } from "../../src/manifest/freeze-exception.ts";
import { freezeDecision } from "../../src/release/freeze.ts";
import { ROOT } from "../helpers/cli.ts";

/*
 * docs/governance.md's freeze example and its exception, taken from the page and judged by the
 * code that judges them at apply: the exception it shows lets its actors through at the moment the
 * page says it is used, so that the page and the 24-hour rule can't disagree again.
 */

/** The yaml fence whose first line is `first`. */
function yamlBlock(markdown: string, first: string): string {
  const blocks = [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");
  const block = blocks.find((text) => text.startsWith(`${first}\n`));
  if (!block) throw new Error(`docs/governance.md has no yaml block starting ${first}`);
  return block;
}

describe("docs/governance.md's freeze exception", () => {
  it("is valid, and lets its actors through the documented freeze when the page says it is used", async () => {
    const page = await readFile(join(ROOT, "docs/governance.md"), "utf8");
    const windows = (parse(yamlBlock(page, "# environments/prod.yaml")).freeze as unknown[]).map((w) =>
      normalizeFreezeWindow(FreezeWindowDocument.parse(w)),
    );
    const file = "freeze-exceptions/incident-4711.yaml";
    const exception = parseFreezeException(
      file,
      "incident-4711",
      yamlBlock(page, `# ${file}`),
      new Set(["prod"]),
    );
    const used = /applied at `([^`]+)`/.exec(page)?.[1];
    expect(used).toBeDefined();
    const now = new Date(used as string);
    expect(Number.isNaN(now.getTime())).toBe(false);

    const decision = freezeDecision(windows, [exception], "prod", "alice", now);
    expect(decision).toMatchObject({ state: "excepted", exception: { file } });
    // Another actor stays frozen: the exception is what lets alice through, not an open window.
    expect(freezeDecision(windows, [exception], "prod", "mallory", now).state).toBe("frozen");
  });
});
