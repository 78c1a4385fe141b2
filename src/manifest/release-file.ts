import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ManifestError } from "./errors.ts";
import { parseOneDocument } from "./one-document.ts";

/*
 * A release file, `releases/<name>.yaml`: what `egp release create` built, committed and reviewed.
 * Its sha256s are the truth: the store's file and the store's record must agree with them before
 * anything is installed. Each object carries the fingerprint of every part it had on the source,
 * which plans compare against a target and which verifies an install.
 */

/** A release name: one store key segment. */
export const RELEASE_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;

/** Why `name` can't name a release, or undefined when it can. */
export function releaseNameProblem(name: string): string | undefined {
  if (RELEASE_NAME.test(name)) return undefined;
  return `${JSON.stringify(name)} is not a release name (lower-case letters, digits, '.', '_' or '-', starting with a letter or digit)`;
}
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "expected a sha256: 64 lower-case hex characters");

const ReleaseObject = z.strictObject({
  guid: z.string().min(1),
  type: z.enum(["Application", "SubForm", "GlobalReport"]),
  name: z.string(),
  /** Absent for a global report, which has no read call: it travels along unchecked. */
  fingerprint: z.string().optional(),
  parts: z.record(z.string(), z.string()).optional(),
  /** Counts of the tree's parts, for the plan's one-line description. */
  counts: z.record(z.string(), z.number().int()).optional(),
  /**
   * Each part's name (and what it belongs to), by the keys of `parts`: a plan names the parts a
   * release adds as a live promotion does. Absent in files written before names were recorded.
   */
  names: z.record(z.string(), z.strictObject({ name: z.string(), parent: z.string().optional() })).optional(),
  installMethod: z.number().int(),
  installOption: z.number().int(),
  translationOption: z.number().int(),
});

export const ReleaseFile = z.strictObject({
  formatVersion: z.literal(1),
  name: z.string().regex(RELEASE_NAME, "expected lower-case letters, digits, '.', '_' or '-'"),
  createdAt: z.string(),
  /** The environment the packages were built on. */
  from: z.string(),
  /** The platform version of that environment when they were built: never installed on an older one. */
  platformVersion: z.string().optional(),
  packages: z.array(
    z.strictObject({
      name: z.string(),
      sha256: Sha256,
      size: z.number().int().nonnegative(),
      inactivateUnusedFields: z.boolean(),
      prefixInactivatedFields: z.string().nullable(),
      snapshot: z.boolean(),
      objects: z.array(ReleaseObject),
    }),
  ),
});
export type ReleaseFile = z.infer<typeof ReleaseFile>;

/** A release as a plan uses it: the file's content and where it is. */
export interface DesiredRelease extends ReleaseFile {
  file: string;
  /** The file's text, digested into the plan: a changed release file makes a saved plan stale. */
  text: string;
}

export const releaseFilePath = (name: string) => `releases/${name}.yaml`;

/** Reads `releases/<name>.yaml`; a malformed file is a ManifestError at file:line:col. */
export async function readReleaseFile(dir: string, name: string): Promise<DesiredRelease> {
  const file = releaseFilePath(name);
  const text = await readFile(join(dir, file), "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
    throw new ManifestError([
      {
        file,
        line: 0,
        column: 0,
        severity: "error",
        path: "",
        message: `no such release file (release: ${name})`,
      },
    ]);
  });
  return parseReleaseFile(file, text, name);
}

export function parseReleaseFile(file: string, text: string, name?: string): DesiredRelease {
  const data = parseOneDocument(file, text, ReleaseFile, (release, report) => {
    if (name !== undefined && release.name !== name)
      report.error(["name"], `is ${release.name}, but the file is the release ${name}`);
  });
  return { ...data, file, text };
}
