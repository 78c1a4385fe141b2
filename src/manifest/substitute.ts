import type { ManifestIssue } from "./errors.ts";
import { formatPath, type Path, type PathSegment } from "./path.ts";
import type { SourceDocument } from "./yaml-source.ts";

/** Where variables come from; `process.env` in the CLI, a plain object in tests. */
export type Variables = Readonly<Record<string, string | undefined>>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Keys whose value is a secret (auth.password, initialPassword, and what a typo of them or a
 * future secret field would look like): a failure there never names anything written in the value.
 */
export const SECRET_KEY = /pass|pwd|secret|token/i;

/** A malformed reference is never quoted: inside a literal secret, the text around `${` is the secret. */
const MALFORMED = {
  unclosed: `a \${ without its closing }; write $\${ for a literal \${`,
  name: `a \${…} that is not a variable reference (a name is letters, digits and _, defaults are not supported); write $\${ for a literal \${`,
} as const;

type Failure = { kind: "missing"; name: string } | { kind: "malformed"; reason: string };

interface Expanded {
  text: string;
  failures: Failure[];
  /** The variables' values that went into `text`. */
  values: string[];
}

/**
 * Expands `${NAME}` in one string. `$${` writes a literal `${`; any other `$` is kept as is, so
 * literal values such as `pa$word` need no escaping. The expansion is never parsed again.
 */
export function expandString(text: string, variables: Variables): Expanded {
  let out = "";
  const failures: Failure[] = [];
  const values: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text.startsWith(`$\${`, i)) {
      out += `\${`;
      i += 3;
      continue;
    }
    if (!text.startsWith(`\${`, i)) {
      out += text[i];
      i += 1;
      continue;
    }
    const close = text.indexOf("}", i + 2);
    if (close < 0) {
      failures.push({ kind: "malformed", reason: MALFORMED.unclosed });
      break;
    }
    const name = text.slice(i + 2, close);
    i = close + 1;
    if (!NAME.test(name)) {
      failures.push({ kind: "malformed", reason: MALFORMED.name });
      continue;
    }
    const value = variables[name];
    if (value === undefined) {
      failures.push({ kind: "missing", name });
      continue;
    }
    out += value;
    values.push(value);
  }
  return { text: out, failures, values };
}

/**
 * The variable is named, never its value. In a secret that is more than one reference, the name
 * is not shown either: `Mk9${zqv}x` may be a literal password that happens to hold `${`.
 */
function messageOf(failure: Failure, secret: boolean): string {
  if (failure.kind === "malformed") return failure.reason;
  if (secret)
    return `a \${…} in this secret names an environment variable that is not set; write $\${ for a literal \${`;
  return `environment variable ${failure.name} is not set`;
}

/** Whether a failure at `path` in `text` must not name the variable: inside a secret, unless it is the whole value. */
function hidesNames(path: Path, text: string): boolean {
  const key = [...path].reverse().find((segment) => typeof segment === "string");
  return key !== undefined && SECRET_KEY.test(key) && !/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(text);
}

/** Substitutes in every string value of `value` (keys are left alone); reports at the string's path. */
function walk(
  value: unknown,
  path: PathSegment[],
  variables: Variables,
  visit: (path: Path, expanded: Expanded, text: string) => void,
): unknown {
  if (typeof value === "string") {
    if (!value.includes(`\${`)) return value;
    const expanded = expandString(value, variables);
    visit(path, expanded, value);
    // On failure the reference stays as written, so that validation adds no second, derived error.
    return expanded.failures.length > 0 ? value : expanded.text;
  }
  if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index], variables, visit));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = walk(item, [...path, key], variables, visit);
    return out;
  }
  return value;
}

/** Whether any string inside `value` holds `${`: most documents hold none, and are left as they are. */
function mentions(value: unknown): boolean {
  if (typeof value === "string") return value.includes(`\${`);
  if (Array.isArray(value)) return value.some(mentions);
  if (value !== null && typeof value === "object") return Object.values(value).some(mentions);
  return false;
}

/**
 * What an unset variable is: an error when an environment is about to be connected to (plan, apply,
 * `validate --env`), or kept as written when the files are only checked (`validate` of every
 * environment), so that a lint job needs no environment's secrets, as `terraform validate` needs no
 * variables. A malformed reference is an error either way.
 */
export type UnsetVariables = "error" | "keep";

/**
 * Substitutes `${VAR}` in a document before it is validated. Records which paths held a reference
 * (so that messages never quote their values) and returns an issue per missing or malformed reference.
 */
export function substituteDocument(
  document: SourceDocument,
  variables: Variables,
  pathPrefix: Path = [],
  unset: UnsetVariables = "error",
): ManifestIssue[] {
  const issues: ManifestIssue[] = [];
  if (!mentions(document.value)) return issues;
  document.value = walk(document.value, [], variables, (path, expanded, text) => {
    document.substituted.set(formatPath(path), { path: [...path], written: text, values: expanded.values });
    const secret = hidesNames(path, text);
    for (const failure of expanded.failures) {
      // Kept: said where it is written, as a warning, so that a run without the variable is not a surprise.
      const kept = failure.kind === "missing" && unset === "keep";
      issues.push({
        ...document.locate(path),
        severity: kept ? "warning" : "error",
        path: formatPath([...pathPrefix, ...path]),
        message: kept
          ? `${messageOf(failure, secret)} here; plan and apply of this environment need it`
          : messageOf(failure, secret),
      });
    }
  });
  return issues;
}
