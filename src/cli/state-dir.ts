import { rmSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { PRIVATE_FILE_MODE, privateDir } from "../io/private-dir.ts";

/** Where egp keeps journals, locks, package zips and embedded data in a repository. */
export const stateDirOf = (dir: string) => join(dir, ".egp");

const GITIGNORE = "# egp's local state (journals, locks, package zips, embedded data): never committed.\n*\n";

/**
 * Creates the state folder, private to this user (0700; a link or another user's folder is
 * refused), with a `.gitignore` that ignores all of it, as Terraform's `.terraform` and Python's
 * virtualenvs do, so that a user's repository needs no rule of its own. Idempotent, and a
 * `.gitignore` already there (the user's own) is left as it is.
 */
export function ensureStateDir(stateDir: string): string {
  privateDir(stateDir);
  const file = join(stateDir, ".gitignore");
  try {
    writeFileSync(file, GITIGNORE, { flag: "wx", mode: PRIVATE_FILE_MODE });
  } catch (error) {
    // Only a convenience: a disk that can't take it fails on what egp writes next, with that
    // write's own one-line error. A half-written file goes, so that a later run writes it whole.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") rmSync(file, { force: true });
  }
  return stateDir;
}

/** Whether a path lies inside the state folder (an embedded data file at `?data=.egp/dev.json`). */
export function insideStateDir(stateDir: string, path: string): boolean {
  const rel = relative(stateDir, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}
