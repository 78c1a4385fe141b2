import { z } from "zod";
import { type AsIs, asIsOf, safeParseFast } from "../schema/as-is.ts";
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
 * The schema, and its as-is predicate when it has one (src/schema/as-is.ts): an object that zod would return
 * unchanged is returned without zod's copy; one that zod would copy (a strip schema's answer with
 * more keys, such as a group's members read for their ids) gets the same copy from the shortcut;
 * zod decides everything else, and its issues are the ones reported.
 */
interface Decoding<S extends z.ZodType> {
  schema: S;
  asIs: AsIs | undefined;
}

function decodingOf<S extends z.ZodType>(schema: S): Decoding<S> {
  return { schema, asIs: asIsOf(schema) };
}

function unwrap<S extends z.ZodType>(
  decoding: Decoding<S>,
  item: unknown,
  context: DecodeContext,
  prefix: PropertyKey[],
): z.output<S> {
  const requested = requestedOf(item, context, prefix);
  if (decoding.asIs?.(requested)) return requested as z.output<S>;
  return parsed(decoding.schema, requested, context, prefix);
}

function parsed<S extends z.ZodType>(
  schema: S,
  requested: unknown,
  context: DecodeContext,
  prefix: PropertyKey[],
): z.output<S> {
  const result = safeParseFast(schema, requested);
  if (!result.success) throw shapeError(context, result.error.issues, [...prefix, "RequestedObject"]);
  return result.data;
}

/** One envelope; returns its `RequestedObject`. */
export function one<S extends z.ZodType>(schema: S): Decoder<z.output<S>> {
  const decoding = decodingOf(schema);
  return (payload, context) => unwrap(decoding, payload, context, []);
}

/** An array of envelopes; returns their `RequestedObject`s. */
export function many<S extends z.ZodType>(schema: S): Decoder<Array<z.output<S>>> {
  const decoding = decodingOf(schema);
  return (payload, context) => {
    if (!Array.isArray(payload)) {
      // A failure answers one envelope, not an array: report that failure, not the shape.
      const single = Envelope.safeParse(payload);
      if (single.success && !single.data.IsSuccessful) unwrap(decoding, payload, context, []);
      throw shapeError(context, [
        { code: "custom", message: "expected an array of envelopes", path: [], input: undefined },
      ]);
    }
    // The objects of one answer come from one serializer: once one needs a copy (keys in another
    // order than the schema's, or keys a strip schema drops), the rest go to safeParseFast at once.
    let asIs = decoding.asIs;
    const out: Array<z.output<S>> = [];
    for (let index = 0; index < payload.length; index++) {
      const requested = requestedOf(payload[index], context, [index]);
      if (asIs?.(requested)) {
        out.push(requested as z.output<S>);
        continue;
      }
      asIs = undefined;
      out.push(parsed(decoding.schema, requested, context, [index]));
    }
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
