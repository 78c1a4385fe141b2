import { z } from "zod";
import { EnvironmentDocument } from "./environment.ts";
import { BUILT_IN_DOCUMENT_KINDS, type DocumentKinds } from "./kinds/index.ts";

/** A manifest document of any of these kinds (egp's own by default), discriminated by `kind`. */
export function manifestDocumentSchema(kinds: DocumentKinds = BUILT_IN_DOCUMENT_KINDS) {
  return z.discriminatedUnion(
    "kind",
    kinds.all.map((kind) => kind.schema) as unknown as [z.ZodObject, ...z.ZodObject[]],
  );
}

function jsonSchemaOf(schema: z.ZodType, title: string): Record<string, unknown> {
  // io: "input" documents what may be written (optional fields stay optional).
  const { $schema, ...rest } = z.toJSONSchema(schema, { io: "input", target: "draft-2020-12" });
  return { $schema, title, ...rest };
}

export interface SchemaFile {
  name: string;
  text: string;
}

/**
 * The JSON Schemas generated from the zod schemas, as the files `egp schema` writes; the manifest
 * schema covers these kinds (egp's own by default).
 */
export function schemaFiles(kinds: DocumentKinds = BUILT_IN_DOCUMENT_KINDS): SchemaFile[] {
  const files = [
    {
      name: "manifest.schema.json",
      schema: jsonSchemaOf(manifestDocumentSchema(kinds), "egp manifest document"),
    },
    {
      name: "environment.schema.json",
      schema: jsonSchemaOf(EnvironmentDocument, "egp environment file"),
    },
  ];
  return files.map(({ name, schema }) => ({ name, text: `${JSON.stringify(schema, null, 2)}\n` }));
}
