import type { ExportContext, ExportedDocument, KindExporter } from "./kind.ts";
import { securityParameterExporter } from "./kinds/security-parameter.ts";
import { userExporter } from "./kinds/user.ts";
import { mergeExported } from "./merge.ts";
import { manifestFile } from "./yaml.ts";

export type { ExportContext, KindExporter } from "./kind.ts";
export { ExportMergeError } from "./merge.ts";

/**
 * egp's own kinds that `egp export` writes, one file each (packages are promotions, not state: not
 * exported). A kind from outside egp brings its exporter in the kinds value the caller passes.
 */
export const BUILT_IN_EXPORTERS: readonly KindExporter[] = Object.freeze([
  securityParameterExporter,
  userExporter,
]);

export { securityParameterExporter, userExporter };

export interface ExportedFile {
  /** Name under the output directory. */
  file: string;
  kind: string;
  noun: string;
  count: number;
  text: string;
  /** The field holding a document's key, and the documents written, for a merge with an earlier export. */
  key: string;
  documents: ExportedDocument[];
  /** Keys of live objects not written on purpose: an earlier export's documents of them stay. */
  leftOut: string[];
  /** After a merge: what the file held for this environment that the export replaces or removes. */
  overwrites?: string[];
}

function headerFor(environments: readonly string[]): string[] {
  const runs = environments.map((env) => `\`egp export --env ${env}\``).join(", ");
  return [
    `Written by ${runs} from the live state. No secrets: no`,
    "passwords, and no roles (the interface can't read them back). Only what the instance reports is",
    "written; a following `egp plan` shows no changes for these documents.",
  ];
}

/**
 * An exported file merged into the file an earlier export (of this or another environment) wrote
 * at the same place: the other environments' documents stay (docs/manifests.md, "Export").
 */
export function mergeExportedFile(
  file: ExportedFile,
  existing: { path: string; text: string },
  environment: string,
  owns?: (key: string) => boolean,
): ExportedFile {
  const { documents, overwrites } = mergeExported({
    file: existing.path,
    text: existing.text,
    kind: file.kind,
    key: file.key,
    environment,
    documents: file.documents,
    ...(owns ? { owns } : {}),
  });
  const environments = [
    ...new Set(documents.flatMap((doc) => (Array.isArray(doc.environments) ? doc.environments : []))),
  ].map(String);
  return {
    ...file,
    documents,
    overwrites,
    count: file.documents.length,
    text: manifestFile(headerFor(environments.length > 0 ? environments : [environment]), documents),
  };
}

/** Live state → manifest files (pure), and the warnings for what had to be left out. */
export function exportManifests(
  context: ExportContext,
  exporters: readonly KindExporter[] = BUILT_IN_EXPORTERS,
): { files: ExportedFile[]; warnings: string[] } {
  const files: ExportedFile[] = [];
  const warnings: string[] = [];
  const { selects } = context;
  for (const exporter of exporters) {
    const result = exporter.export(context);
    warnings.push(...result.warnings);
    if (selects) {
      result.documents = result.documents.filter((doc) => selects(exporter.kind, String(doc[exporter.key])));
      // A targeted export leaves the files of kinds it did not select as they are.
      if (result.documents.length === 0) continue;
    }
    const header = headerFor([context.environment.name]);
    files.push({
      file: exporter.file,
      kind: exporter.kind,
      noun: exporter.noun,
      count: result.documents.length,
      text: manifestFile(header, result.documents),
      key: exporter.key,
      documents: result.documents,
      // Left out on purpose only where it would have been written: a --target that skips it says nothing.
      leftOut: (result.leftOut ?? []).filter((key) => !selects || selects(exporter.kind, key)),
    });
  }
  return { files, warnings };
}
