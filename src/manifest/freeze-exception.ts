import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ENVIRONMENT_NAME } from "./environment-name.ts";
import { ManifestError, type ManifestIssue } from "./errors.ts";
import { Instant } from "./freeze.ts";
import { reporterFor } from "./report.ts";
import { parsePrecise } from "./yaml-source.ts";
import { reportZodIssues } from "./zod-issues.ts";

/*
 * A way through a freeze: `freeze-exceptions/<name>.yaml`, committed so that it was reviewed. It
 * names one environment, the actors who may use it and when it ends; the gate refuses one that
 * ends more than a day after it is used.
 */

export const FREEZE_EXCEPTIONS_DIR = "freeze-exceptions";

export const FreezeExceptionDocument = z
  .strictObject({
    environment: z.string().regex(ENVIRONMENT_NAME, "expected an environment name (a file in environments/)"),
    until: Instant.describe("When the exception ends; refused at use when more than 24 hours ahead."),
    reason: z.string().min(1),
    allowedBy: z
      .array(z.string().min(1))
      .min(1)
      .describe(
        "The actors who may use it: in GitHub Actions who started the run (GITHUB_TRIGGERING_ACTOR), elsewhere EGP_ACTOR or the OS user.",
      ),
  })
  .describe("A reviewed exception to an environment's freeze windows.");

/** A reviewed way through a freeze, as read from its file: the one type the gate and the audit use. */
export interface FreezeException {
  name: string;
  /** Repository-relative path. */
  file: string;
  environment: string;
  /** An instant with its offset. */
  until: string;
  reason: string;
  allowedBy: readonly string[];
}

/**
 * An exception read from its text. With `knownEnvironments` (validate), one naming another
 * environment is refused: the gate would pass it over, and its actors would stay frozen.
 */
export function parseFreezeException(
  file: string,
  name: string,
  text: string,
  knownEnvironments?: ReadonlySet<string>,
): FreezeException {
  const parsed = parsePrecise(file, text);
  const issues: ManifestIssue[] = [...parsed.issues];
  const [document] = parsed.documents;
  if (!document && issues.length === 0)
    issues.push({ file, line: 0, column: 0, severity: "error", path: "", message: "is empty" });
  if (document) {
    const report = reporterFor(document, [], issues);
    const result = FreezeExceptionDocument.safeParse(document.value);
    if (!result.success) reportZodIssues(result.error, report);
    else if (knownEnvironments && !knownEnvironments.has(result.data.environment))
      report.error(
        ["environment"],
        `unknown environment "${result.data.environment}" (known: ${[...knownEnvironments].join(", ") || "none"})`,
      );
    if (result.success && issues.length === 0) return { name, file, ...result.data };
  }
  throw new ManifestError(issues);
}

/**
 * Every exception of the repository; none when the folder is absent. A malformed one is an error,
 * and so, given `knownEnvironments`, is one naming an environment not among them.
 */
export async function readFreezeExceptions(
  dir: string,
  knownEnvironments?: ReadonlySet<string>,
): Promise<FreezeException[]> {
  const names = await readdir(join(dir, FREEZE_EXCEPTIONS_DIR)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  const files = names.filter((name) => /\.ya?ml$/.test(name)).sort();
  const exceptions: FreezeException[] = [];
  for (const entry of files) {
    const file = `${FREEZE_EXCEPTIONS_DIR}/${entry}`;
    const text = await readFile(join(dir, file), "utf8");
    exceptions.push(parseFreezeException(file, entry.replace(/\.ya?ml$/, ""), text, knownEnvironments));
  }
  return exceptions;
}
