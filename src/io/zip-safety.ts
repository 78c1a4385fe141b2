/*
 * What holds of any zip egp or the emulator opens, whatever its layout: no entry name that could
 * escape the folder it is expanded into, no link, and a bound on entries and on expanded bytes. The
 * rule lives here, once, because the client side (egp inspecting a package it promotes) and the
 * emulator (accepting an upload) both hold packages to it; each adds its own checks after it.
 */

/** The bounds a zip's directory is held to. */
export interface ZipSafetyLimits {
  entries: number;
  expandedBytes: number;
}

/** What an entry breaks, with a phrase that names it (never the entry's data). */
export interface ZipEntryProblem {
  rule: "TooManyEntries" | "UnsafeEntryName" | "SymlinkEntry" | "ExpandsTooFar";
  reason: string;
}

/** The directory facts of one entry (yauzl's `Entry` has them). */
export interface ZipEntryFacts {
  fileName: string;
  externalFileAttributes: number;
  uncompressedSize: number;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** Why a name could escape the folder it expands into (or confuse a tool that expands it); none when safe. */
export function unsafeEntryName(name: string): string | undefined {
  if (name.includes("\\")) return "a backslash in an entry name";
  if (name.includes("\0")) return "a NUL in an entry name";
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return "an absolute entry name";
  if (name.split("/").includes("..")) return "an entry name that climbs out of the folder";
  return undefined;
}

/** A symbolic link, by the Unix mode a zip keeps in the high bits of the external attributes. */
export function isSymlinkEntry(externalFileAttributes: number): boolean {
  return ((externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK;
}

/**
 * Checks a zip's entries one by one, in directory order, counting entries and declared expanded
 * sizes: nothing is inflated. (A reader must still bound what an entry really inflates to; yauzl's
 * `validateEntrySizes` does.)
 */
export class ZipSafety {
  private entries = 0;
  private expanded = 0;
  private readonly limits: ZipSafetyLimits;

  constructor(limits: ZipSafetyLimits) {
    this.limits = limits;
  }

  /** The first rule `entry` breaks, given the entries before it; undefined when it breaks none. */
  check(entry: ZipEntryFacts): ZipEntryProblem | undefined {
    this.entries += 1;
    this.expanded += entry.uncompressedSize;
    if (this.entries > this.limits.entries)
      return { rule: "TooManyEntries", reason: `more than ${this.limits.entries} entries` };
    const unsafe = unsafeEntryName(entry.fileName);
    if (unsafe) return { rule: "UnsafeEntryName", reason: unsafe };
    if (isSymlinkEntry(entry.externalFileAttributes))
      return { rule: "SymlinkEntry", reason: "a symbolic link entry" };
    if (this.expanded > this.limits.expandedBytes)
      return { rule: "ExpandsTooFar", reason: `more than ${this.limits.expandedBytes} bytes once expanded` };
    return undefined;
  }
}
