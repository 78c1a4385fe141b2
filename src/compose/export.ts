import { readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { EgpError } from "../errors/index.ts";
import { type ExportedFile, exportManifests, mergeExportedFile } from "../export/index.ts";
import { environmentOf, type ManifestIssue, readRepository, selectManifests } from "../manifest/index.ts";
import { keysToRead, parseTargets, selects } from "../plan/index.ts";
import { readLiveState, startEarlyReads } from "../state/index.ts";
import type { Kinds } from "./kinds.ts";
import type { OpenEnvironment } from "./plan-environment.ts";

/*
 * `egp export` for the CLI and a library caller: an environment's live state as manifest files,
 * scoped to it, such that a following plan shows no changes (docs/manifests.md, "Export"); each file
 * merged with the one an earlier export left in the folder, and refused where it holds an edit the
 * export would lose. Reads only: no package objects, no secrets. The caller writes the files.
 */

export interface ExportOptions {
  /** The repository: the environment's file (and `manifests` narrows which manifests are loaded). */
  dir: string;
  env: string;
  open: OpenEnvironment;
  /** The folder the files go to: what an earlier export wrote there is merged into. */
  out: string;
  /** Only these objects (`--target KIND/KEY`, globs allowed). */
  targets?: readonly string[];
  /** Load only the manifest files these globs match. */
  manifests?: readonly string[];
  /** Also write the account egp logs in with (left out by default, so that no edit locks egp out). */
  includeLoginUser?: boolean;
  /** Replace documents of the folder that differ from the instance (refused otherwise). */
  force?: boolean;
  /** The kinds to load, read and write (`createKinds`); egp's own by default. */
  kinds?: Kinds;
}

export interface EnvironmentExport {
  /** The files as exported, one per kind, before the merge. */
  exported: ExportedFile[];
  /** The same files merged with what the folder holds: what to write, in the same order. */
  files: ExportedFile[];
  /** What had to be left out, in words. */
  warnings: string[];
  /** The environment file's warnings. */
  issues: ManifestIssue[];
}

/** What the files held that the export would replace: refused unless forced, so no edit is lost. */
function refuseOverwrites(files: readonly ExportedFile[], shown: string): void {
  const lost = files.flatMap((f) => (f.overwrites ?? []).map((what) => `${join(shown, f.file)}: ${what}`));
  if (lost.length === 0) return;
  throw new EgpError(
    "EGP_EXPORT_OVERWRITE",
    `export: the files hold what the instance does not, which this export would overwrite (${lost.join("; ")}); plan to see the difference, or pass --force to overwrite`,
  );
}

/** The files as they will be written: each merged with the file an earlier export left there. */
async function mergedFiles(
  out: string,
  files: readonly ExportedFile[],
  merge: (file: ExportedFile, existing: { path: string; text: string }) => ExportedFile,
): Promise<ExportedFile[]> {
  const shown = relative(process.cwd(), out) || ".";
  return Promise.all(
    files.map(async (file) => {
      const path = join(out, file.file);
      const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
        // Nothing there yet (or no folder: writing it says why).
        if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
        throw new EgpError("EGP_FILE_SYSTEM", `--out: cannot read ${path} (${error.code ?? error.message})`, {
          cause: error,
        });
      });
      return text === undefined ? file : merge(file, { path: join(shown, file.file), text });
    }),
  );
}

/** Reads the environment's live state and makes its manifest files, merged into `out`'s. */
export async function exportEnvironment(options: ExportOptions): Promise<EnvironmentExport> {
  const { env, kinds } = options;
  const repository = selectManifests(await readRepository(options.dir), options.manifests);
  const { state: desired, warnings: issues } = environmentOf(
    repository,
    env,
    kinds ? { kinds: kinds.documents } : {},
  );
  const targets = parseTargets(options.targets);
  const client = await options.open(desired.environment);
  // Objects named exactly are read by name; a kind no target names is not needed to write the
  // others (a parameter's users, say), so its narrowable read is skipped.
  const early = startEarlyReads(client, (kind) =>
    targets.length > 0 && !targets.some((t) => t.kind === kind) ? [] : keysToRead(targets, kind),
  );
  // Packages are promotions between environments, not state to export: skip their trees.
  const live = await readLiveState(
    client,
    { ...desired, packages: [] },
    {
      scope: "all",
      early,
      ...(kinds ? { kinds: kinds.live } : {}),
    },
  );
  const exported = exportManifests(
    {
      environment: desired.environment,
      live,
      ...(options.includeLoginUser ? { includeLoginUser: true } : {}),
      ...(targets.length > 0 ? { selects: (kind: string, key: string) => selects(targets, kind, key) } : {}),
    },
    kinds?.exporters,
  );
  const out = resolve(options.out);
  const files = await mergedFiles(out, exported.files, (file, existing) => {
    const leftOut = new Set(file.leftOut.map((key) => key.toLowerCase()));
    return mergeExportedFile(
      file,
      existing,
      env,
      (key) => !leftOut.has(key.toLowerCase()) && (targets.length === 0 || selects(targets, file.kind, key)),
    );
  });
  if (!options.force) refuseOverwrites(files, relative(process.cwd(), out) || ".");
  return { exported: exported.files, files, warnings: exported.warnings, issues };
}
