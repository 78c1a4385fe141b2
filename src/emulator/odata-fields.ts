import type { z } from "zod";
import type { FieldKind } from "./odata.ts";

/*
 * The names an OData query over a wire resource may use, and their kinds, read from the resource's
 * zod schema, so that a list read's query follows the shape it answers without a second table.
 */

/** The parts of a schema's public definition (zod 4's `schema.def`) read here. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  /** A literal's. */
  values?: readonly unknown[];
  /** An enum's. */
  entries?: Record<string, unknown>;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { def: Def }).def;

function kindOf(schema: z.ZodType): FieldKind {
  const { type, innerType, values: literals, entries } = defOf(schema);
  if ((type === "nullable" || type === "optional") && innerType) return kindOf(innerType);
  if (type === "string" || type === "number" || type === "boolean") return type;
  if (type === "enum" || type === "literal") {
    const values = type === "literal" ? [...(literals ?? [])] : Object.values(entries ?? {});
    if (values.every((v) => typeof v === "string")) return "string";
    if (values.every((v) => typeof v === "number")) return "number";
  }
  return "object";
}

/** Field → kind for every key of `schema`; `datetimes` names text fields that hold ISO 8601 date-times. */
export function fieldKinds(
  schema: z.ZodObject,
  datetimes: readonly string[] = [],
): Readonly<Record<string, FieldKind>> {
  const kinds: Record<string, FieldKind> = {};
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    kinds[name] = datetimes.includes(name) ? "datetime" : kindOf(field);
  }
  return kinds;
}
