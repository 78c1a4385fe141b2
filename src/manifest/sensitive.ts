import type { SourceLocation } from "./errors.ts";
import { valueAt } from "./path.ts";
import type { Reporter } from "./report.ts";
import { Secret } from "./secret.ts";
import { SECRET_KEY } from "./substitute.ts";
import type { SourceDocument } from "./yaml-source.ts";

/**
 * A value that `${VAR}` substitution put in a document. It is sensitive wherever it lands, as
 * Terraform propagates `sensitive`: plans show `reference`, never the value. Nothing scrubs the
 * output by value afterwards: that would tell a manifest's author which of their strings equals it.
 */
export interface SensitiveValue {
  /** Where the object that holds it is declared (its desired object's `source`); absent for an environment file. */
  at?: SourceLocation;
  /** The value's dot-path in its file (`users[2].firstName`). */
  path: string;
  /** The string as written, references and all (`${EGP_PROD_PASSWORD}`). */
  reference: string;
  value: Secret;
}

function lastKey(path: readonly (string | number)[]): string | undefined {
  return [...path].reverse().find((segment): segment is string => typeof segment === "string");
}

/** The substituted string values of a document, as sensitive values of the object declared at `at`. */
export function sensitiveValuesOf(
  document: SourceDocument,
  report: Reporter,
  at: SourceLocation | undefined,
): SensitiveValue[] {
  const values: SensitiveValue[] = [];
  for (const { path, written } of document.substituted.values()) {
    const value = valueAt(document.value, path);
    if (typeof value !== "string" || value === "" || value === written) continue;
    values.push({
      ...(at ? { at } : {}),
      path: report.where(path).path,
      reference: written,
      value: new Secret(value),
    });
  }
  return values;
}

/** Whether a string inside `value` holds `text`. */
function holds(value: unknown, text: string): boolean {
  if (typeof value === "string") return value.includes(text);
  if (Array.isArray(value)) return value.some((item) => holds(item, text));
  if (value !== null && typeof value === "object")
    return Object.values(value).some((item) => holds(item, text));
  return false;
}

/**
 * A substituted value the plans could not hide is refused, as Terraform refuses a sensitive value
 * as a `for_each` key: a key names its object in every plan and comment, and a value turned into a
 * code or an id (`status`, `domain`) would show as that code. Secret fields are `Secret`s already.
 */
export function refuseUnhideable(
  document: SourceDocument,
  desired: unknown,
  keyField: string,
  report: Reporter,
): void {
  for (const { path } of document.substituted.values()) {
    const value = valueAt(document.value, path);
    if (typeof value !== "string" || value === "") continue;
    const key = lastKey(path);
    if (key !== undefined && SECRET_KEY.test(key)) continue;
    if (path[0] === keyField)
      report.error(
        path,
        `can't come from \${…}: a key names its object in every plan and PR comment; write it in the file`,
      );
    else if (!holds(desired, value))
      report.error(
        path,
        `can't come from \${…}: this field becomes a code or an id that plans would show; write it in the file`,
      );
  }
}
