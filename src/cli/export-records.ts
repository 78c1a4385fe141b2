import { join, relative, resolve } from "node:path";
import type { OpenEnvironment } from "../compose/plan-environment.ts";
import { printable } from "../plan/index.ts";
import { ExitError } from "./errors.ts";
import { writeFiles } from "./export-files.ts";
import { issueLine } from "./issue-line.ts";

/** The flags of `egp export --kind Record`, as commander parses them. */
export interface RecordExportFlags {
  env: string;
  out: string;
  force?: boolean;
  json?: boolean;
  manifests?: string[];
  application?: string;
  level?: string;
  key?: string[];
  refKey?: string[];
}

/* `egp export --kind Record`: one application level's records as a Record document (docs/records.md, "Export"). */
export async function exportRecordsCommand(
  flags: RecordExportFlags,
  dir: string,
  open: OpenEnvironment,
): Promise<void> {
  // Loaded here: the YAML writer is needed by this command only.
  const { exportRecords } = await import("../compose/export-records.ts");
  const out = resolve(flags.out);
  const result = await exportRecords({
    dir,
    env: flags.env,
    open,
    out,
    application: flags.application as string,
    ...(flags.level === undefined ? {} : { level: flags.level }),
    ...(flags.key ? { key: flags.key } : {}),
    ...(flags.refKey ? { refKeys: flags.refKey } : {}),
    ...(flags.manifests?.length ? { manifests: flags.manifests } : {}),
    ...(flags.force ? { force: true } : {}),
  });
  for (const issue of result.issues) process.stderr.write(`${issueLine(issue)}\n`);
  await writeFiles(out, [result.file]);
  for (const warning of result.warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
  const file = join(relative(process.cwd(), out) || ".", result.file.file);
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ files: [{ file, kind: "Record", records: result.records, leftOutFields: result.leftOutFields }], warnings: result.warnings })}\n`,
    );
    return;
  }
  const merged =
    result.file.documents.length > 1
      ? ` (merged: ${result.file.documents.length} documents in the file)`
      : "";
  process.stdout.write(
    `${printable(`wrote ${file}: ${result.records} ${result.records === 1 ? "record" : "records"} of ${result.application}${merged}`)}\n`,
  );
  if (result.leftOutFields.length > 0)
    process.stdout.write(
      `${printable(`  left out ${result.leftOutFields.join(", ")}: no Record document can express ${result.leftOutFields.length === 1 ? "its type" : "their types"}`)}\n`,
    );
}

/** Whether this is `--kind Record`; the record flags without it, or another kind, are refused. */
export function recordFlagsOf(
  flags: RecordExportFlags & { kind?: string; target?: string[]; includeLoginUser?: boolean },
): boolean {
  const recordOnly = [
    flags.application !== undefined && "--application",
    flags.level !== undefined && "--level",
    flags.key !== undefined && "--key",
    flags.refKey !== undefined && "--ref-key",
  ].filter((flag): flag is string => typeof flag === "string");
  if (flags.kind === undefined) {
    if (recordOnly.length > 0) throw new ExitError("EGP_USAGE", `${recordOnly[0]}: only with --kind Record`);
    return false;
  }
  if (flags.kind.toLowerCase() !== "record")
    throw new ExitError(
      "EGP_USAGE",
      `--kind: "${flags.kind}" is not exported on its own; --kind Record writes one application's records, and without --kind every other kind is written`,
    );
  if (flags.application === undefined)
    throw new ExitError("EGP_USAGE", "--kind Record: name the application with --application NAME");
  if (flags.target !== undefined || flags.includeLoginUser)
    throw new ExitError("EGP_USAGE", "--kind Record: --target and --include-login-user do not apply");
  return true;
}
