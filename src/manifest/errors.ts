import { EgpError } from "../errors/index.ts";
/** Where something is written: a repository-relative file and a 1-based line and column. */
export interface SourceLocation {
  file: string;
  /** 1-based; 0 when the issue concerns a file or folder as a whole. */
  line: number;
  column: number;
}

/** Where one field of a document is written, with its dot-path (`users[3].initialPassword`). */
export interface FieldSource extends SourceLocation {
  path: string;
}

export type Severity = "error" | "warning";

/** One problem found in an environment file or a manifest, pointing at where it is written. */
export interface ManifestIssue extends SourceLocation {
  severity: Severity;
  /** Dot-path inside the file, e.g. `users[3].contacts[0].subType`; empty for a whole file. */
  path: string;
  message: string;
}

/** One line: `manifests/users.yaml:12:5 users[3].status: expected one of active, inactive, locked`. */
export function formatManifestError(issue: ManifestIssue): string {
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.column}` : issue.file;
  const text = issue.path ? `${where} ${issue.path}: ${issue.message}` : `${where}: ${issue.message}`;
  return issue.severity === "warning" ? `warning: ${text}` : text;
}

/** Thrown by the loaders that return a value rather than a result; carries every issue found. */
export class ManifestError extends EgpError {
  readonly issues: readonly ManifestIssue[];
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly path: string;

  constructor(issues: readonly ManifestIssue[]) {
    const [first] = issues;
    if (!first) throw new TypeError("ManifestError needs at least one issue");
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
    super("EGP_MANIFEST_INVALID", `${formatManifestError(first)}${more}`);
    this.name = "ManifestError";
    this.issues = issues;
    this.file = first.file;
    this.line = first.line;
    this.column = first.column;
    this.path = first.path;
  }
}

/** Orders issues by file, line and column, and drops exact repeats. */
export function sortIssues(issues: readonly ManifestIssue[]): ManifestIssue[] {
  const seen = new Set<string>();
  const unique = issues.filter((issue) => {
    const text = formatManifestError(issue);
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
  return unique.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}
