import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { parseArgs } from "node:util";
import { appendSummary, runUrl } from "./actions.ts";
import { githubFrom, repoFrom, runMain } from "./context.ts";
import { RELEASE_NAME } from "./release-args.ts";
import { openReleasePullRequest } from "./release-pr.ts";

/*
 * After `egp release create`: commits releases/NAME.yaml to the branch egp/release/NAME and opens a
 * pull request with it, so that the release's record is reviewed like any change.
 *
 *   node scripts/ci/open-release-pr.ts --name NAME --base main [--working-directory DIR] [--repo owner/name]
 */

const OPTIONS = {
  name: { type: "string" },
  base: { type: "string" },
  "working-directory": { type: "string", default: "." },
  repo: { type: "string" },
} as const;

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const { values: flags } = parseArgs({ args: argv, options: OPTIONS, strict: true });
  const name = flags.name ?? "";
  if (!RELEASE_NAME.test(name)) throw new Error(`--name ${JSON.stringify(name)} is not a release name`);
  if (!flags.base) throw new Error("--base is required: the branch the pull request goes to");
  const directory = flags["working-directory"];
  const content = readFileSync(join(directory, "releases", `${name}.yaml`), "utf8");
  const url = runUrl();
  const opened = await openReleasePullRequest(githubFrom(), repoFrom(flags.repo), {
    name,
    path: posix.normalize(posix.join(directory.split("\\").join("/"), "releases", `${name}.yaml`)),
    content,
    base: flags.base,
    body: [
      `The record of release \`${name}\`, made by \`egp release create\`${url ? ` in ${url}` : ""}.`,
      "",
      "Its files are in the release store under their sha256. Once merged, name it in an environment file (`release: " +
        name +
        "`) to promote it.",
    ].join("\n"),
  });
  appendSummary(`Release \`${name}\`: pull request #${opened.number} (${opened.url})\n`);
  process.stdout.write(`release ${name}: pull request #${opened.number} opened\n`);
  return 0;
}

if (import.meta.main) runMain(() => main());
