import { z } from "zod";
import { safeParseFast } from "../schema/as-is.ts";
import type { SafeParse } from "../schema/validate.ts";
import { Envelope, ValidationMessage } from "../wire/index.ts";
import { errorFromResponse, ResponseShapeError } from "./errors.ts";
import type { Scrub } from "./redact.ts";

/*
 * Every response goes through the envelope schema. `IsSuccessful: false` is an error whatever the
 * HTTP status (bad credentials answer 200). A body of the wrong shape is a ResponseShapeError that
 * carries the zod issues.
 */

export interface DecodeContext {
  method: string;
  path: string;
  status: number;
  scrub: Scrub;
  /** The call was a login: a non-success means rejected credentials. */
  login?: boolean;
  /** How an answer is checked against its schema (the client's); the shortcut of schema/as-is.ts by default. */
  validate?: SafeParse;
}

export type Decoder<T> = (payload: unknown, context: DecodeContext) => T;

function shapeError(context: DecodeContext, issues: z.core.$ZodIssue[], prefix: PropertyKey[] = []) {
  return new ResponseShapeError({
    method: context.method,
    path: context.path,
    status: context.status,
    issues: issues.map((issue) => ({ ...issue, path: [...prefix, ...issue.path] })),
    scrub: context.scrub,
  });
}

/** A list's nullable-optional field, as the envelope schema accepts it: absent, null or an array. */
const listOrNothing = (value: unknown) => value === undefined || value === null || Array.isArray(value);

/**
 * The `RequestedObject` of a successful envelope. The common case (a plain object with
 * `IsSuccessful: true`, no validation messages) is recognized by hand: a list of 10,000 users is
 * 10,000 envelopes. Anything else goes through the envelope schema, for its exact error.
 */
function requestedOf(item: unknown, context: DecodeContext, prefix: PropertyKey[]): unknown {
  if (typeof item === "object" && item !== null && !Array.isArray(item)) {
    const { IsSuccessful, Links, ValidationMessages, RequestedObject } = item as Record<string, unknown>;
    const quiet =
      ValidationMessages === undefined ||
      ValidationMessages === null ||
      (Array.isArray(ValidationMessages) && ValidationMessages.length === 0);
    if (IsSuccessful === true && listOrNothing(Links) && quiet) return RequestedObject;
  }
  const envelope = Envelope.safeParse(item);
  if (!envelope.success) throw shapeError(context, envelope.error.issues, prefix);
  if (!envelope.data.IsSuccessful) {
    throw errorFromResponse({ ...context, messages: envelope.data.ValidationMessages });
  }
  return envelope.data.RequestedObject;
}

/**
 * The answer's `RequestedObject` through its schema: by default the shortcut of schema/as-is.ts,
 * which returns an object that zod would return unchanged without zod's copy, and the same copy
 * where zod would make one (a strip schema's answer with more keys, such as a group's members read
 * for their ids); zod decides everything else, and its issues are the ones reported.
 */
function parsed<S extends z.ZodType>(
  schema: S,
  requested: unknown,
  context: DecodeContext,
  prefix: PropertyKey[],
): z.output<S> {
  const result = (context.validate ?? safeParseFast)(schema, requested);
  if (!result.success) throw shapeError(context, result.error.issues, [...prefix, "RequestedObject"]);
  return result.data;
}

function unwrap<S extends z.ZodType>(
  schema: S,
  item: unknown,
  context: DecodeContext,
  prefix: PropertyKey[],
): z.output<S> {
  return parsed(schema, requestedOf(item, context, prefix), context, prefix);
}

/** One envelope; returns its `RequestedObject`. */
export function one<S extends z.ZodType>(schema: S): Decoder<z.output<S>> {
  return (payload, context) => unwrap(schema, payload, context, []);
}

/** An array of envelopes; returns their `RequestedObject`s. */
export function many<S extends z.ZodType>(schema: S): Decoder<Array<z.output<S>>> {
  return (payload, context) => {
    if (!Array.isArray(payload)) {
      // A failure answers one envelope, not an array: report that failure, not the shape.
      const single = Envelope.safeParse(payload);
      if (single.success && !single.data.IsSuccessful) unwrap(schema, payload, context, []);
      throw shapeError(context, [
        { code: "custom", message: "expected an array of envelopes", path: [], input: undefined },
      ]);
    }
    const out: Array<z.output<S>> = [];
    for (let index = 0; index < payload.length; index++)
      out.push(unwrap(schema, payload[index], context, [index]));
    return out;
  };
}

/**
 * For reads the seed does not say return one or many: accepts either, returns an array.
 * (A cross-reference can target several levels, for example.)
 */
export function oneOrMany<S extends z.ZodType>(schema: S): Decoder<Array<z.output<S>>> {
  const list = many(schema);
  const single = one(schema);
  return (payload, context) => (Array.isArray(payload) ? list(payload, context) : [single(payload, context)]);
}

/** Validation messages of a failed response body, when it is an envelope. */
export function messagesOf(payload: unknown): ValidationMessage[] | undefined {
  const parsed = z
    .object({ ValidationMessages: z.array(ValidationMessage).nullable().optional() })
    .safeParse(payload);
  return parsed.success ? (parsed.data.ValidationMessages ?? undefined) : undefined;
}

/** Parses a JSON body, or fails as a shape error. */
export function parseJson(text: string, context: DecodeContext): unknown {
  if (text.trim() === "") {
    throw shapeError(context, [{ code: "custom", message: "empty body", path: [], input: undefined }]);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw shapeError(context, [{ code: "custom", message: "body is not JSON", path: [], input: undefined }]);
  }
}
