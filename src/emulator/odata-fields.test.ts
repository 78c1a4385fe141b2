import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Application, FieldDefinition, SecurityParameter } from "../wire/index.ts";
import { fieldKinds } from "./odata-fields.ts";

describe("fieldKinds", () => {
  it("reads each key's kind through optional and nullable, enums and literals by their values", () => {
    const schema = z.object({
      Text: z.string(),
      Count: z.number().int().nullable().optional(),
      Flag: z.boolean().optional(),
      Word: z.enum(["a", "b"]),
      Code: z.literal(3),
      Mixed: z.enum(["a"]).or(z.literal(1)),
      List: z.array(z.number()),
      Nested: z.object({ A: z.string() }).nullable(),
    });
    expect(fieldKinds(schema)).toEqual({
      Text: "string",
      Count: "number",
      Flag: "boolean",
      Word: "string",
      Code: "number",
      Mixed: "object",
      List: "object",
      Nested: "object",
    });
  });

  it("names date-time text fields when asked, and covers every key of a wire resource", () => {
    const kinds = fieldKinds(SecurityParameter, ["PermittedFromTime"]);
    expect(Object.keys(kinds)).toEqual(Object.keys(SecurityParameter.shape));
    expect(kinds).toMatchObject({
      PermittedFromTime: "datetime",
      PermittedToTime: "string",
      Default: "boolean",
    });
    expect(fieldKinds(Application)).toMatchObject({ Name: "string", Type: "string", Translations: "object" });
    expect(fieldKinds(FieldDefinition)).toMatchObject({
      RelatedSubformId: "number",
      RelatedValuesListId: "number",
      ReferencedLevelIds: "object",
    });
  });
});
