/**
 * Names against `*` globs, case-insensitively (`breakglass*`, `k*`): `*` matches any run of
 * characters, every other character itself. Used by PrunePolicy `exclude` and `--target`.
 */
export function globMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  const expressions = patterns.map(
    (pattern) => new RegExp(`^${pattern.split("*").map(literal).join(".*")}$`, "isu"),
  );
  return (name) => expressions.some((expression) => expression.test(name));
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

export function isGlob(pattern: string): boolean {
  return pattern.includes("*");
}
