import { z } from "zod";
import { Envelope, IdObject, type ValidationMessage } from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Call, Caller } from "../caller.ts";
import { type Decoder, one, oneOrMany } from "../envelope.ts";
import { errorFromResponse } from "../errors.ts";
import { type ODataQuery, odataParams, type SelectOnly } from "../odata.ts";
import { apiCoreRoute, type Route, route } from "../route.ts";
import {
  type ContentPost,
  ContentRead,
  type ContentWrapper,
  type DataGatewayRequest,
  type FieldContentRequest,
  HistoryEntry,
} from "../schemas/content.ts";

/*
 * Content records. The seed shows no body for the reads and the history log, so their items are
 * passed through as objects. History and delete sit under the `/api/core/` prefix.
 * - create (POST) is not retried: POST of an existing record is a 403, so a blind repeat after a
 *   lost answer would fail anyway; OutcomeUnknownError tells the caller to re-read;
 * - update (PUT) and delete are retried.
 */

const idOnly = one(IdObject);

/** History: a field with no content, or an application without history, answers an empty response. */
const historyDecoder: Decoder<Array<z.infer<typeof HistoryEntry>>> = (payload, context) => {
  if (payload === undefined || payload === null) return [];
  return oneOrMany(HistoryEntry)(payload, context);
};

/** Data gateway: the answer is a validation message reporting success or failure; both are returned. */
const gatewayDecoder: Decoder<ValidationMessage[]> = (payload, context) => {
  const envelope = Envelope.safeParse(payload);
  if (envelope.success && !envelope.data.IsSuccessful) {
    throw errorFromResponse({ ...context, messages: envelope.data.ValidationMessages });
  }
  one(z.unknown())(payload, context);
  return envelope.data?.ValidationMessages ?? [];
};

export function contentResource(caller: Caller) {
  const read = <T>(at: Route, decode: Decoder<T>, query: Array<[string, string]>, json?: unknown) =>
    caller.call({ method: "POST", override: true, route: at, query, json, decode });
  const write = async (call: Call<IdObject>) => (await caller.call(call)).Id;

  return {
    /** Get content by id; `$select` is the only option the seed allows here. */
    async get(contentId: number, options: SelectOnly = {}) {
      const query: Array<[string, string]> = [
        ["id", String(idOf("contentId", contentId))],
        ...odataParams(options),
      ];
      return read(route`/core/content/contentid`, one(ContentRead), query);
    },

    /**
     * Not in the seed: a record by path id (`core/content/<id>`), as public clients read it; the
     * same answer as `get`.
     */
    async getByPathId(contentId: number) {
      const at = route`/core/content/${idOf("contentId", contentId)}`;
      return read(at, one(ContentRead), []);
    },

    /** Content by reference field id; all OData options allowed. */
    async byReferenceField(referenceFieldId: number, query?: ODataQuery) {
      const params: Array<[string, string]> = [
        ["id", String(idOf("referenceFieldId", referenceFieldId))],
        ...odataParams(query),
      ];
      return read(route`/core/content/referencefield/referencefieldid`, oneOrMany(ContentRead), params);
    },

    /** Not in the seed: `referencefield/<id>`, the path-id form of `byReferenceField`. */
    async byReferenceFieldPathId(referenceFieldId: number, query?: ODataQuery) {
      const at = route`/core/content/referencefield/${idOf("referenceFieldId", referenceFieldId)}`;
      return read(at, oneOrMany(ContentRead), odataParams(query));
    },

    /** Field content by content ids and field ids (body), with OData options. */
    async fieldContent(request: FieldContentRequest, query?: ODataQuery) {
      return read(route`/core/content/fieldcontent`, oneOrMany(ContentRead), odataParams(query), request);
    },

    async history(contentId: number) {
      return caller.call({
        method: "POST",
        override: true,
        route: apiCoreRoute`/core/content/history/${idOf("contentId", contentId)}`,
        emptyAs: [],
        decode: historyDecoder,
      });
    },

    /** Returns the new record's id. */
    async create(record: ContentPost): Promise<number> {
      return write({ method: "POST", route: route`/core/content`, json: record, decode: idOnly });
    },

    /** Returns the record's id; send `SubformFieldId` only for sub-form content. */
    async update(wrapper: ContentWrapper): Promise<number> {
      return write({ method: "PUT", route: route`/core/content`, json: wrapper, decode: idOnly });
    },

    async remove(contentId: number): Promise<void> {
      await caller.call({
        method: "DELETE",
        route: apiCoreRoute`/core/content/${idOf("contentId", contentId)}`,
        emptyAs: undefined,
        decode: one(z.unknown()),
      });
    },

    /** Tells the service that external content changed; returns the messages it answers with. */
    async dataGateway(request: DataGatewayRequest) {
      return caller.call({
        method: "PUT",
        route: route`/core/content/externalContentChangeNotification`,
        json: request,
        decode: gatewayDecoder,
      });
    },
  };
}

export type ContentResource = ReturnType<typeof contentResource>;
