import { z } from "zod";
import { Envelope, IdObject, type ValidationMessage } from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import { type Decoder, one, oneOrMany } from "../envelope.ts";
import { errorFromResponse } from "../errors.ts";
import { type ODataQuery, odataParams, type SelectOnly } from "../odata.ts";
import { apiCoreRoute, route } from "../route.ts";
import {
  ContentRead,
  type ContentRecord,
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
  const read = <T>(
    at: ReturnType<typeof route>,
    decode: Decoder<T>,
    query: Array<[string, string]>,
    json?: unknown,
  ) => caller.call({ method: "POST", override: true, route: at, query, json, decode });
  return {
    /** Get content by id; `$select` is the only option the seed allows here. */
    get: (contentId: number, options: SelectOnly = {}) =>
      read(route`/core/content/contentid`, one(ContentRead), [
        ["id", String(idOf("contentId", contentId))],
        ...odataParams(options),
      ]),

    /** Content by reference field id; all OData options allowed. */
    byReferenceField: (referenceFieldId: number, query?: ODataQuery) =>
      read(route`/core/content/referencefield/referencefieldid`, oneOrMany(ContentRead), [
        ["id", String(idOf("referenceFieldId", referenceFieldId))],
        ...odataParams(query),
      ]),

    /** Field content by content ids and field ids (body), with OData options. */
    fieldContent: (request: FieldContentRequest, query?: ODataQuery) =>
      read(route`/core/content/fieldcontent`, oneOrMany(ContentRead), odataParams(query), request),

    history: (contentId: number) =>
      caller.call({
        method: "POST",
        override: true,
        route: apiCoreRoute`/core/content/history/${idOf("contentId", contentId)}`,
        emptyAs: [],
        decode: historyDecoder,
      }),

    /** Returns the new record's id. */
    create: async (record: ContentRecord) =>
      (await caller.call({ method: "POST", route: route`/core/content`, json: record, decode: idOnly })).Id,

    /** Returns the record's id; send `SubformFieldId` only for sub-form content. */
    update: async (wrapper: ContentWrapper) =>
      (await caller.call({ method: "PUT", route: route`/core/content`, json: wrapper, decode: idOnly })).Id,

    remove: async (contentId: number): Promise<void> => {
      await caller.call({
        method: "DELETE",
        route: apiCoreRoute`/core/content/${idOf("contentId", contentId)}`,
        emptyAs: undefined,
        decode: one(z.unknown()),
      });
    },

    /** Tells the service that external content changed; returns the messages it answers with. */
    dataGateway: (request: DataGatewayRequest) =>
      caller.call({
        method: "PUT",
        route: route`/core/content/externalContentChangeNotification`,
        json: request,
        decode: gatewayDecoder,
      }),
  };
}

export type ContentResource = ReturnType<typeof contentResource>;
