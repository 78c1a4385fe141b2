import type { z } from "zod";

/*
 * How a stage validates a value against its zod schema: a function with zod's own `safeParse`
 * answer. The manifest loader and the client each take one, so that a caller (the benchmarks) can
 * pass zod's plain parse in place of the shortcut of as-is.ts.
 */

export type SafeParse = <S extends z.ZodType>(schema: S, value: unknown) => z.ZodSafeParseResult<z.output<S>>;

/** zod's parse, as it is. */
export const zodParse: SafeParse = (schema, value) => schema.safeParse(value);
