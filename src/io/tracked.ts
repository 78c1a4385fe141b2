import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/*
 * Which files under a folder git tracks. egp's local state (`.egp/`) is ignored by the `.gitignore`
 * egp writes there; a file of it that git tracks all the same was committed on purpose (`git add
 * -f`), by whoever pushed it, so it is not this machine's state whatever its seal says.
 */

const known = new Map<string, ReadonlySet<string>>();

/** Whether `folder` lies in a git checkout: a `.git` (folder, or file of a worktree) above it. */
function inCheckout(folder: string): boolean {
  for (let at = resolve(folder); ; at = dirname(at)) {
    if (existsSync(join(at, ".git"))) return true;
    if (dirname(at) === at) return false;
  }
}

/**
 * The absolute paths of the files under `folder` that git tracks, asked once per folder per
 * process; empty when the folder is not there, is not in a checkout, or git can't answer (the
 * seal of each file still decides then).
 */
export function trackedUnder(folder: string): ReadonlySet<string> {
  const root = resolve(folder);
  const cached = known.get(root);
  if (cached) return cached;
  let tracked: ReadonlySet<string> = new Set();
  if (existsSync(root) && inCheckout(root)) {
    try {
      const listed = execFileSync("git", ["-C", root, "ls-files", "-z", "--", "."], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        timeout: 10_000,
      });
      tracked = new Set(
        listed
          .split("\0")
          .filter(Boolean)
          .map((path) => join(root, path)),
      );
    } catch {
      // No git on the PATH, or a checkout git won't read (another user's): the seals decide.
    }
  }
  known.set(root, tracked);
  return tracked;
}

/** Whether git tracks `file` (an absolute path under `folder`). */
export function isTracked(folder: string, file: string): boolean {
  return trackedUnder(folder).has(resolve(file));
}
