import { formatManifestError, type ManifestIssue } from "../manifest/index.ts";
import { printable } from "../plan/index.ts";

/**
 * A manifest issue as the CLI prints it: its file, position and path, printable. Apart from
 * user-errors.ts, which knows every stage's errors: a command that only prints issues loads none.
 */
export function issueLine(issue: ManifestIssue): string {
  return printable(formatManifestError(issue));
}
