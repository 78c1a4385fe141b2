import { z } from "zod";
import { bind } from "../bind.ts";
import { badRequest } from "../failure.ts";

/*
 * Request bodies of the content writes, bound leniently as elsewhere. Field contents are kept raw
 * here and checked field by field against the level (write-record.ts), so that every problem of a
 * body is reported at once.
 */

const int = z.number().int();

const RecordBody = z.object({
  Id: int.nullish(),
  LevelId: int,
  FieldContents: z.record(z.string(), z.unknown()),
  Version: z.string().nullish(),
});

/** A POST may send the bare record (the seed's example) or the PUT's wrapper. */
const PostRecordBody = RecordBody.extend({ SubformFieldId: int.nullish() });
const WrapperBody = z.object({ Content: RecordBody, SubformFieldId: int.nullish() });

export interface SaveInput {
  /** A positive id, or null when the body names none. */
  id: number | null;
  levelId: number;
  fieldContents: Record<string, unknown>;
  /** null when omitted (or sent as null, which binds the same on real instances). */
  subformFieldId: number | null;
}

function inputOf(record: z.infer<typeof RecordBody>, subformFieldId: number | null | undefined): SaveInput {
  return {
    id: record.Id && record.Id > 0 ? record.Id : null,
    levelId: record.LevelId,
    fieldContents: record.FieldContents,
    subformFieldId: subformFieldId ?? null,
  };
}

function isWrapper(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  return Object.keys(body).some((key) => key.toLowerCase() === "content");
}

export function postInput(body: unknown): SaveInput {
  if (isWrapper(body)) {
    const wrapper = bind(WrapperBody, body, "content");
    return inputOf(wrapper.Content, wrapper.SubformFieldId);
  }
  const record = bind(PostRecordBody, body, "content");
  return inputOf(record, record.SubformFieldId);
}

export function putInput(body: unknown): SaveInput {
  if (body !== undefined && body !== null && !isWrapper(body)) {
    throw badRequest(
      "ContentWrapperRequired",
      "PUT content takes the wrapper {Content: <content record>, SubformFieldId?}.",
    );
  }
  const wrapper = bind(WrapperBody, body, "content");
  const input = inputOf(wrapper.Content, wrapper.SubformFieldId);
  if (input.id === null) {
    throw badRequest("ContentIdRequired", "Content.Id: a positive record id is required when updating.");
  }
  return input;
}
