import type { Command } from "commander";

/** `--target` and `--manifests` as parsed: each repeatable, absent when not given. */
export interface SelectionFlags {
  target?: string[];
  manifests?: string[];
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** Adds `--target KIND/KEY` and `--manifests GLOB` (both repeatable) to a command (docs/apply.md, "A subset"). */
export function withSelection(command: Command): Command {
  return command
    .option(
      "--target <KIND/KEY>",
      "only this object and what it depends on (repeatable; * globs, e.g. User/k*)",
      collect,
    )
    .option("--manifests <glob>", "load only the manifest files this glob matches (repeatable)", collect);
}

/** The selection as the planner's options take it. */
export function selectionOf(flags: SelectionFlags): { targets?: string[]; manifests?: string[] } {
  return {
    ...(flags.target?.length ? { targets: flags.target } : {}),
    ...(flags.manifests?.length ? { manifests: flags.manifests } : {}),
  };
}
