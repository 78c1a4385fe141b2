import { Document, isScalar, visit } from "yaml";
import type { ExportedDocument } from "./kind.ts";

/**
 * `${` in a value would be read back as a variable reference; `$${` is the manifest's escape for a
 * literal `${` (docs/manifests.md).
 */
export function escapeReferences(value: unknown): unknown {
  // A function, because in a replacement string `$$` means one `$`.
  if (typeof value === "string") return value.replaceAll("${", () => "$${");
  if (Array.isArray(value)) return value.map(escapeReferences);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, escapeReferences(item)]));
  return value;
}

/** One document as YAML: lists of scalars and nested mappings inline, as the example manifests write them. */
function documentText(doc: ExportedDocument): string {
  const yaml = new Document(escapeReferences(doc));
  visit(yaml, {
    Seq(_key, node) {
      if (node.items.every((item) => isScalar(item))) node.flow = true;
    },
    Map(_key, node, path) {
      if (path.length > 1) node.flow = true;
    },
  });
  return yaml.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** A multi-document file, with a header that says where it came from. */
export function manifestFile(header: readonly string[], documents: readonly ExportedDocument[]): string {
  const comment = header.map((line) => `# ${line}`.trimEnd()).join("\n");
  const body = documents.map(documentText).join("---\n");
  return `${comment}\n${body}`;
}
