import {
  DataGatewayRequest,
  type Envelope,
  FieldContentRequest,
  REFERENCE_FIELD_TYPES,
  type ValidationMessage,
} from "../../wire/index.ts";
import { bind } from "../bind.ts";
import { catalogueOf } from "../catalogue/model.ts";
import { postInput, putInput } from "../content/bodies.ts";
import { externalChange } from "../content/data-gateway.ts";
import { presentHistory } from "../content/history.ts";
import { allRecords, contentOf, recordOf, type StoredRecord } from "../content/model.ts";
import { canRead, requireAccess, sessionUser } from "../content/permissions.ts";
import { contentField, contentScope, levelFields, presentRecord } from "../content/query.ts";
import { createRecord, deleteRecord, updateRecord } from "../content/write-record.ts";
import { ok, okId } from "../envelope.ts";
import { badRequest, forbidden, HttpFailure, message, notFound } from "../failure.ts";
import { applyODataQuery, parseODataQuery } from "../odata.ts";
import { pathId } from "../path-id.ts";
import type { RouteContext, Routes } from "../router.ts";

/*
 * The Content segment: records (post, put, delete, get by id, by reference field, field content),
 * the history log and the data gateway, to the letter of the seed. Choices where it is silent:
 * docs/emulator.md, "Content, attachments and workflow".
 */

const api = { family: "api-core" } as const;
/** Routes that read the `$` options themselves (each says which it takes). */
const odata = { odata: true } as const;

/** A positive integer id from the query string (`?id=12`), or a 400 naming the parameter. */
function queryId(ctx: RouteContext, name: string): number {
  const raw = ctx.query[name];
  const text = Array.isArray(raw) ? undefined : raw;
  if (text === undefined || !/^\d{1,9}$/.test(text) || Number(text) === 0) {
    const shown = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
    throw badRequest(
      "InvalidId",
      `The query parameter ${name} must be one positive integer, not "${shown.slice(0, 40)}".`,
      shown.slice(0, 40),
    );
  }
  return Number(text);
}

function recordOr404(ctx: RouteContext, id: number): StoredRecord {
  const record = recordOf(contentOf(ctx.store), id);
  if (!record) throw notFound("Content", id);
  return record;
}

function readable(ctx: RouteContext) {
  const userId = sessionUser(ctx.session);
  return (record: StoredRecord) => canRead(ctx.store, userId, record);
}

function create({ store, session, body }: RouteContext): Envelope {
  return okId(createRecord(store, sessionUser(session), postInput(body)).Id);
}

function update(ctx: RouteContext): Envelope {
  const input = putInput(ctx.body);
  const record = recordOf(contentOf(ctx.store), input.id as number);
  if (!record) {
    throw forbidden("ContentDoesNotExist", `Content ${input.id} does not exist; create it with POST.`);
  }
  requireAccess(ctx.store, ctx.session, record);
  return okId(updateRecord(ctx.store, sessionUser(ctx.session), record, input).Id);
}

function remove(ctx: RouteContext): Envelope {
  const record = recordOr404(ctx, pathId(ctx.params, "contentId"));
  requireAccess(ctx.store, ctx.session, record);
  deleteRecord(ctx.store, record);
  return okId(record.Id);
}

function getById(ctx: RouteContext): Envelope {
  return presentById(ctx, queryId(ctx, "id"));
}

/** `core/content/<id>`: public clients read a record by path id; it answers as `contentid?id=<id>`. */
function getByPathId(ctx: RouteContext): Envelope {
  return presentById(ctx, pathId(ctx.params, "contentId"));
}

function presentById(ctx: RouteContext, id: number): Envelope {
  const record = recordOr404(ctx, id);
  const scope = contentScope(catalogueOf(ctx.store).fieldsOf(record.LevelId));
  const query = parseODataQuery(ctx.query, scope.spec, { allow: ["$select"] });
  requireAccess(ctx.store, ctx.session, record);
  return ok(presentRecord(record, query, scope));
}

/** The levels a reference field's read covers: the whole target application for a questionnaire's target. */
function levelsOfReference(ctx: RouteContext, fieldId: number): Set<number> {
  const catalogue = catalogueOf(ctx.store);
  const field = catalogue.field(fieldId);
  if (!field) throw notFound("Field", fieldId);
  if (!REFERENCE_FIELD_TYPES.includes(field.Type)) {
    throw badRequest(
      "NotAReferenceField",
      `Field ${fieldId} (${field.Name}) is not a cross-reference or related-records field.`,
      fieldId,
    );
  }
  if (!catalogue.questionnaireTargetedBy(fieldId)) return new Set(field.ReferencedLevelIds);
  const modules = new Set(field.ReferencedLevelIds.map((id) => catalogue.level(id)?.ModuleId));
  return new Set(
    catalogue
      .all("levels")
      .filter((level) => modules.has(level.ModuleId))
      .map((level) => level.Id),
  );
}

function byReferenceField(ctx: RouteContext): Envelope[] {
  return recordsOfReference(ctx, queryId(ctx, "id"));
}

/** `referencefield/<id>`: the path-id form public clients use of `referencefieldid?id=<id>`. */
function byReferenceFieldPath(ctx: RouteContext): Envelope[] {
  return recordsOfReference(ctx, pathId(ctx.params, "fieldId"));
}

function recordsOfReference(ctx: RouteContext, fieldId: number): Envelope[] {
  const levels = levelsOfReference(ctx, fieldId);
  const scope = contentScope(levelFields(catalogueOf(ctx.store), levels));
  const query = parseODataQuery(ctx.query, scope.spec);
  const rows = allRecords(contentOf(ctx.store)).filter((r) => levels.has(r.LevelId) && readable(ctx)(r));
  return applyODataQuery(rows, query, contentField(scope)).map((r) => ok(presentRecord(r, query, scope)));
}

/**
 * Unknown field or content ids are 400; records the user can't read are left out. An empty
 * `FieldIds` means every field of the records, as integrations rely on real instances to do.
 */
function fieldContent(ctx: RouteContext): Envelope[] {
  const request = bind(FieldContentRequest, ctx.body, "field content");
  const catalogue = catalogueOf(ctx.store);
  const content = contentOf(ctx.store);
  const messages: ValidationMessage[] = [];
  const fieldIds = [...new Set(request.FieldIds)];
  const contentIds = [...new Set(request.ContentIds)];
  for (const id of fieldIds) {
    if (!catalogue.field(id)) {
      messages.push(message("FieldNotFound", `FieldIds: field ${id} does not exist.`, { erroredValue: id }));
    }
  }
  for (const id of contentIds) {
    if (!recordOf(content, id)) {
      messages.push(
        message("ContentNotFound", `ContentIds: content ${id} does not exist.`, { erroredValue: id }),
      );
    }
  }
  if (messages.length > 0) throw new HttpFailure(400, messages);
  const rows = contentIds.map((id) => recordOf(content, id)!).filter(readable(ctx));
  const everyField = fieldIds.length === 0;
  const fields = everyField
    ? levelFields(
        catalogue,
        rows.map((r) => r.LevelId),
      )
    : fieldIds.map((id) => catalogue.field(id)!);
  const scope = contentScope(fields);
  const query = parseODataQuery(ctx.query, scope.spec);
  const only = everyField ? undefined : new Set(fieldIds);
  return applyODataQuery(rows, query, contentField(scope)).map((r) =>
    ok(presentRecord(r, query, scope, only)),
  );
}

function history(ctx: RouteContext): Envelope[] {
  const record = recordOr404(ctx, pathId(ctx.params, "contentId"));
  requireAccess(ctx.store, ctx.session, record);
  return presentHistory(contentOf(ctx.store), record).map((item) => ok(item));
}

function dataGateway({ store, session, body }: RouteContext): Envelope {
  const request = bind(DataGatewayRequest, body, "data gateway");
  const saved = externalChange(store, sessionUser(session), request);
  return { Links: [], RequestedObject: {}, IsSuccessful: true, ValidationMessages: [saved] };
}

export function registerContent(routes: Routes): void {
  routes.post("/core/content", create);
  routes.put("/core/content", update);
  routes.read("/core/content/contentid", getById, odata);
  routes.read("/core/content/referencefield/referencefieldid", byReferenceField, odata);
  routes.read("/core/content/referencefield/:fieldId", byReferenceFieldPath, odata);
  routes.read("/core/content/fieldcontent", fieldContent, odata);
  // The seed's table gives this read as POST: a POST is the read with or without the GET override,
  // and also when a client sends `X-Http-Method-Override: POST`.
  routes.post("/core/content/fieldcontent", fieldContent, odata);
  routes.put("/core/content/externalContentChangeNotification", dataGateway);
  routes.read("/core/content/history/:contentId", history, api);
  routes.read("/core/content/:contentId", getByPathId, { ...api, odata: true });
  routes.delete("/core/content/:contentId", remove, api);
}
