import type { FieldSource, ManifestIssue, Severity } from "./errors.ts";
import { formatPath, type Path, valueAt } from "./path.ts";
import type { SourceDocument } from "./yaml-source.ts";

/** Collects issues about one document, each with its position and its full dot-path. */
export interface Reporter {
  readonly document: SourceDocument;
  /** An error at `path`; `shown` is the dot-path printed, when it must differ (a key that is not shown). */
  error(path: Path, message: string, at?: "key" | "value", shown?: Path): void;
  warning(path: Path, message: string, at?: "key" | "value"): void;
  /** The value at `path`, quoted for a message; a value that came from `${VAR}` is not shown. */
  quote(path: Path): string;
  /** Where the value at `path` is written, with its full dot-path, for a check made later (the plan). */
  where(path: Path): FieldSource;
  /** True once this reporter has reported an error. */
  failed(): boolean;
}

/**
 * `prefix` names the document in paths: `users[3]` for the fourth document of a file when it is a
 * User; nothing for an environment file, whose paths start at its root.
 */
export function reporterFor(document: SourceDocument, prefix: Path, sink: ManifestIssue[]): Reporter {
  return new DocumentReporter(document, prefix, sink);
}

// A class, not closures: a load makes two per document, and keeps one per document until its
// environment rules have run.
class DocumentReporter implements Reporter {
  readonly document: SourceDocument;
  private readonly prefix: Path;
  private readonly sink: ManifestIssue[];
  private errors = 0;

  constructor(document: SourceDocument, prefix: Path, sink: ManifestIssue[]) {
    this.document = document;
    this.prefix = prefix;
    this.sink = sink;
  }

  private push(severity: Severity, path: Path, message: string, at: "key" | "value" = "value", shown = path) {
    if (severity === "error") this.errors += 1;
    this.sink.push({
      ...this.document.locate(path, at),
      severity,
      path: formatPath([...this.prefix, ...shown]),
      message,
    });
  }

  error(path: Path, message: string, at?: "key" | "value", shown?: Path): void {
    this.push("error", path, message, at, shown);
  }

  warning(path: Path, message: string, at?: "key" | "value"): void {
    this.push("warning", path, message, at);
  }

  quote(path: Path): string {
    if (this.document.substituted.has(formatPath(path))) return `(a value from \${…})`;
    return JSON.stringify(valueAt(this.document.value, path));
  }

  where(path: Path): FieldSource {
    return { ...this.document.locate(path), path: formatPath([...this.prefix, ...path]) };
  }

  failed(): boolean {
    return this.errors > 0;
  }
}
