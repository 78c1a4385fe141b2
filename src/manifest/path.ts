/** A step in a path through a YAML value: a mapping key or a list index. */
export type PathSegment = string | number;
export type Path = readonly PathSegment[];

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `["contacts", 0, "subType"]` → `contacts[0].subType`; odd keys are quoted: `roles["General User"]`. */
export function formatPath(path: Path): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) text += text ? `.${segment}` : segment;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/** The value at `path` inside a plain JS value, or undefined. */
export function valueAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const segment of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PathSegment, unknown>)[segment];
  }
  return node;
}
