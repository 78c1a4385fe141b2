import { chmodSync, lstatSync, mkdirSync, type Stats } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { EgpError } from "../errors/index.ts";

/*
 * `.egp/` holds journals (user data), package files (snapshots of production) and embedded data
 * (password hashes): it is private to the user who runs egp. Its folders are made 0700 and its
 * files 0600, and none of it is used through a symbolic link or from another user's folder, which
 * a repository's tree (a pull request) or another local user could have put there.
 */

/** A folder or file under `.egp/` that egp refuses to use: a link, another user's, not a folder. */
export class UnsafeStateError extends EgpError {
  readonly path: string;
  constructor(path: string, why: string) {
    super(
      "EGP_STATE_UNSAFE",
      `${path} ${why}: egp keeps its state only in folders of its own user; remove it, and egp makes it again`,
    );
    this.name = "UnsafeStateError";
    this.path = path;
  }
}

/** Mode of the files egp writes under `.egp/` (umask only removes bits, so it survives any). */
export const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIR_MODE = 0o700;

/** The entry at `path` itself (a link is not followed), or undefined when there is none. */
export function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function refusal(stat: Stats, kind: "folder" | "file"): string | undefined {
  if (stat.isSymbolicLink()) return "is a symbolic link";
  if (kind === "folder" ? !stat.isDirectory() : !stat.isFile()) return `is not a ${kind}`;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `belongs to another user (uid ${stat.uid})`;
  return undefined;
}

/** Checks one folder (making it when `create`); false when it is not there. */
function checkFolder(path: string, create: boolean): boolean {
  let stat = statOf(path);
  if (!stat && !create) return false;
  if (!stat) {
    try {
      mkdirSync(path, { mode: PRIVATE_DIR_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    stat = lstatSync(path);
  }
  const why = refusal(stat, "folder");
  if (why) throw new UnsafeStateError(path, why);
  // Folders made by earlier versions (0755) are tightened without a word.
  if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(path, PRIVATE_DIR_MODE);
  return true;
}

/**
 * Makes, or checks, each folder from `root` (`.egp`) down to `folder` (inside it): private, a real
 * folder, of this user. With `create: false` nothing is made, and the walk stops at the first
 * folder that is not there (false: nothing to read). Throws `UnsafeStateError`.
 */
export function privateDir(root: string, folder: string = root, options: { create?: boolean } = {}): boolean {
  const create = options.create ?? true;
  const inside = relative(root, folder);
  if (isAbsolute(inside) || inside.split(sep)[0] === "..")
    throw new RangeError(`${folder} is not inside ${root}`);
  let path = root;
  if (!checkFolder(path, create)) return false;
  for (const part of inside.split(sep).filter(Boolean)) {
    path = join(path, part);
    if (!checkFolder(path, create)) return false;
  }
  return true;
}

/**
 * Checks a file that egp is about to open under a private folder: when it is there, it is a
 * regular file of this user, not a link, and it is made 0600.
 */
export function assertPrivateFile(file: string): void {
  const stat = statOf(file);
  if (!stat) return;
  const why = refusal(stat, "file");
  if (why) throw new UnsafeStateError(file, why);
  if ((stat.mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(file, PRIVATE_FILE_MODE);
}
