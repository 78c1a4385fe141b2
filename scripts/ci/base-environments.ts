import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { parseArgs } from "node:util";
import { setOutputs } from "./actions.ts";
import { runMain } from "./context.ts";

/*
 * A pull request's preview reads the environment files of its base branch, never its own: a PR
 * that points `url:` at its own host would otherwise get the prod password sent there.
 *
 *   node scripts/ci/base-environments.ts --base DIR [--working-directory DIR]
 *
 * `--base` is a checkout of the base branch. The PR's `environments/` (and `egp.yaml`) are
 * replaced by the base's; when they differ, the outputs say so (`environments-changed=true`,
 * `note`), and the workflow then runs the preview without credentials.
 */

const OPTIONS = {
  base: { type: "string" },
  "working-directory": { type: "string" },
} as const;

/** What the preview reads from the base branch, relative to the working directory. */
export const FROM_BASE = ["environments", "egp.yaml"] as const;

/** Every file under `root/path` (or `path` itself), relative to `root`, with forward slashes. */
function filesOf(root: string, path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

/** The files the pull request adds, removes or changes under FROM_BASE. */
export function changedFiles(head: string, base: string): string[] {
  const changed = new Set<string>();
  for (const path of FROM_BASE) {
    const [ours, theirs] = [filesOf(head, path), filesOf(base, path)];
    for (const file of new Set([...ours, ...theirs])) {
      const a = join(head, file);
      const b = join(base, file);
      if (!existsSync(a) || !existsSync(b) || !readFileSync(a).equals(readFileSync(b))) changed.add(file);
    }
  }
  return [...changed].sort();
}

/** Replaces the head's FROM_BASE with the base's. */
export function useBase(head: string, base: string): void {
  for (const path of FROM_BASE) {
    rmSync(join(head, path), { recursive: true, force: true });
    if (existsSync(join(base, path))) cpSync(join(base, path), join(head, path), { recursive: true });
  }
}

/** The line the preview comment opens with when the PR changes what it reads from the base. */
export function changedNote(files: readonly string[]): string {
  const names = files.map((file) => `\`${file.replace(/[`\r\n]/g, "")}\``).join(", ");
  return (
    `This pull request changes ${names}. The preview reads environment files from the base branch only ` +
    "and ran without credentials (`egp validate`): a maintainer sees the plan once the change is merged " +
    "or by running the plan workflow on the branch (docs/ci.md)."
  );
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const { values: flags } = parseArgs({ args: argv, options: OPTIONS, strict: true });
  if (!flags.base) throw new Error("--base is required: a checkout of the base branch");
  const folder = flags["working-directory"] ?? ".";
  const head = join(process.cwd(), folder);
  const base = join(flags.base, folder);
  const changed = changedFiles(head, base);
  useBase(head, base);
  setOutputs({
    "environments-changed": changed.length > 0 ? "true" : "false",
    note: changed.length > 0 ? changedNote(changed) : "",
  });
  process.stdout.write(
    changed.length > 0
      ? `the pull request changes ${changed.join(", ")}: the preview uses the base branch's files and no credentials\n`
      : "the environment files are the base branch's\n",
  );
  return 0;
}

if (import.meta.main) runMain(main);
