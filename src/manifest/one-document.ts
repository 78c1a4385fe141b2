import type { z } from "zod";
import { ManifestError, type ManifestIssue } from "./errors.ts";
import { type Reporter, reporterFor } from "./report.ts";
import { parsePrecise } from "./yaml-source.ts";
import { reportZodIssues } from "./zod-issues.ts";

/*
 * A file that holds exactly one YAML document of a schema (a release file, a freeze exception, a
 * drift acknowledgement): parsed with positions, checked by the schema and by `check`, its data
 * returned, or every issue thrown at file:line:col as one ManifestError.
 */
export function parseOneDocument<S extends z.ZodType>(
  file: string,
  text: string,
  schema: S,
  check?: (data: z.output<S>, report: Reporter) => void,
): z.output<S> {
  const parsed = parsePrecise(file, text);
  const issues: ManifestIssue[] = [...parsed.issues];
  const [document] = parsed.documents;
  if (!document && issues.length === 0)
    issues.push({ file, line: 0, column: 0, severity: "error", path: "", message: "is empty" });
  if (document) {
    const report = reporterFor(document, [], issues);
    const result = schema.safeParse(document.value);
    if (!result.success) reportZodIssues(result.error, report);
    else check?.(result.data, report);
    if (result.success && issues.length === 0) return result.data;
  }
  throw new ManifestError(issues);
}

/** An `environment` the repository does not have, reported at its key (validate's check). */
export function checkKnownEnvironment(
  environment: string,
  known: ReadonlySet<string> | undefined,
  report: Reporter,
): void {
  if (known && !known.has(environment))
    report.error(
      ["environment"],
      `unknown environment "${environment}" (known: ${[...known].join(", ") || "none"})`,
    );
}
