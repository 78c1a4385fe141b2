import { z } from "zod";

/** One entry of `ValidationMessages`, shaped as real instances return it. */
export const ValidationMessage = z.object({
  Reason: z.string().nullable().optional(),
  Severity: z.number().int().nullable().optional(),
  MessageKey: z.string().nullable().optional(),
  Description: z.string().nullable().optional(),
  Location: z.number().int().nullable().optional(),
  ErroredValue: z.unknown().optional(),
  Validator: z.string().nullable().optional(),
  XmlData: z.string().nullable().optional(),
  ResourcedMessage: z.string().nullable().optional(),
});
export type ValidationMessage = z.infer<typeof ValidationMessage>;

export const Link = z.object({
  Rel: z.string().optional(),
  Href: z.string().optional(),
  Method: z.string().optional(),
});
export type Link = z.infer<typeof Link>;

/** The envelope every resource call answers with; `RequestedObject` is narrowed per call. */
export function envelopeOf<T extends z.ZodType>(requested: T) {
  return z.object({
    Links: z.array(z.unknown()).nullable().optional(),
    RequestedObject: requested,
    IsSuccessful: z.boolean(),
    ValidationMessages: z.array(ValidationMessage).nullable().optional(),
  });
}

export const Envelope = envelopeOf(z.unknown());
export type Envelope<T = unknown> = {
  Links?: unknown[] | null;
  RequestedObject: T;
  IsSuccessful: boolean;
  ValidationMessages?: ValidationMessage[] | null;
};

/** `RequestedObject` of a call that returns only the affected id. */
export const IdObject = z.object({ Id: z.number().int() });
export type IdObject = z.infer<typeof IdObject>;

/** `RequestedObject` of a call that returns an empty object. */
export const EmptyObject = z.object({}).loose();
