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
  let errors = 0;
  const push = (
    severity: Severity,
    path: Path,
    message: string,
    at: "key" | "value" = "value",
    shown = path,
  ) => {
    if (severity === "error") errors += 1;
    sink.push({
      ...document.locate(path, at),
      severity,
      path: formatPath([...prefix, ...shown]),
      message,
    });
  };
  return {
    document,
    error: (path, message, at, shown) => push("error", path, message, at, shown),
    warning: (path, message, at) => push("warning", path, message, at),
    quote(path) {
      if (document.substituted.has(formatPath(path))) return `(a value from \${…})`;
      return JSON.stringify(valueAt(document.value, path));
    },
    where: (path) => ({ ...document.locate(path), path: formatPath([...prefix, ...path]) }),
    failed: () => errors > 0,
  };
}
