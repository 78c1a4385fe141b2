import { afterEach, describe, expect, it, vi } from "vitest";
import { wireUser } from "../../test/builders/wire.ts";
import { IdObject } from "../wire/index.ts";
import { type DecodeContext, many } from "./envelope.ts";
import { ResponseShapeError } from "./errors.ts";

/*
 * The decoders' shortcut for answers that need zod's copy: a group's members read for their ids
 * are whole users, which the ids' strip schema copies down to `Id`. The copy is made without a
 * zod parse per member; a malformed member still fails with zod's issue, at its place.
 */

const context: DecodeContext = {
  method: "POST",
  path: "/core/system/user/group/1",
  status: 200,
  scrub: (t) => t,
};

const envelope = (requested: unknown) => ({ Links: [], RequestedObject: requested, IsSuccessful: true });

function members(count: number): Array<ReturnType<typeof envelope>> {
  return Array.from({ length: count }, (_, i) => envelope(wireUser({ Id: i + 1, UserName: `user${i + 1}` })));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("many() of a strip schema, over objects with more keys", () => {
  it("returns zod's copies (the schema's keys only) without a zod parse per object", () => {
    const answer = members(200);
    const expected = answer.map((item) => IdObject.parse(item.RequestedObject));
    const parse = vi.spyOn(IdObject, "safeParse");
    const ids = many(IdObject)(answer, context);
    expect(parse).not.toHaveBeenCalled();
    expect(ids).toEqual(expected);
    expect(ids.map((id) => Object.keys(id))).toEqual(expected.map(() => ["Id"]));
  });

  it("still fails a malformed object with zod's issue at its index", () => {
    const answer = members(20);
    (answer[13]?.RequestedObject as Record<string, unknown>).Id = "14";
    const decode = () => many(IdObject)(answer, context);
    expect(decode).toThrow(ResponseShapeError);
    expect(decode).toThrow(
      "POST /core/system/user/group/1: unexpected response shape: 13.RequestedObject.Id: Invalid input: expected number, received string",
    );
  });
});
