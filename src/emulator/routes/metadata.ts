import {
  Application,
  EventAction,
  EventRule,
  FieldDefinition,
  Level,
  Questionnaire,
  QuestionnaireRule,
  REFERENCE_FIELD_TYPES,
} from "../../wire/index.ts";
import { type Catalogue, catalogueOf, type ModuleRecord } from "../catalogue/model.ts";
import {
  presentApplication,
  presentField,
  presentLevel,
  presentQuestionnaire,
} from "../catalogue/present.ts";
import { ok } from "../envelope.ts";
import { badRequest, notFound } from "../failure.ts";
import { fieldKinds } from "../odata-fields.ts";
import type { RouteContext, Routes } from "../router.ts";

/*
 * The metadata reads of the seed (all read-only: GET, or POST with the GET override), plus two
 * reads real instances serve that the seed does not list: field definitions by level and by id.
 * A collection answers an array of envelopes and takes the OData options over its items' fields;
 * an unknown id is 404; an id that is not a whole number is 400.
 */

/** What each list's OData options may name: the fields of the items it answers. */
const FIELDS = {
  application: fieldKinds(Application),
  questionnaire: fieldKinds(Questionnaire),
  level: fieldKinds(Level),
  field: fieldKinds(FieldDefinition),
  eventRule: fieldKinds(EventRule),
  eventAction: fieldKinds(EventAction),
  questionnaireRule: fieldKinds(QuestionnaireRule),
};

function idParam(ctx: RouteContext, name: string): number {
  const raw = ctx.params[name] ?? "";
  if (!/^\d{1,10}$/.test(raw)) throw badRequest("InvalidId", `${name} must be a whole number.`, raw);
  return Number(raw);
}

function found<T>(record: T | undefined, what: string, id: number): T {
  if (record === undefined) throw notFound(what, id);
  return record;
}

const isQuestionnaire = (module: ModuleRecord) => module.Type === "Questionnaire";

function levelOf(catalogue: Catalogue, ctx: RouteContext, name = "levelId") {
  const id = idParam(ctx, name);
  return found(catalogue.level(id), "Level", id);
}

export function registerMetadata(routes: Routes): void {
  const base = "/core/system";

  // ---- applications and questionnaires (modules)

  routes.list(
    `${base}/application`,
    ({ store }) =>
      catalogueOf(store)
        .all("modules")
        .filter((m) => !isQuestionnaire(m))
        .map(presentApplication),
    FIELDS.application,
  );

  routes.read(`${base}/application/:applicationId`, (ctx) => {
    const id = idParam(ctx, "applicationId");
    const module = catalogueOf(ctx.store).module(id);
    if (!module || isQuestionnaire(module)) throw notFound("Application", id);
    return ok(presentApplication(module));
  });

  routes.list(
    `${base}/questionnaire`,
    ({ store }) => catalogueOf(store).all("modules").filter(isQuestionnaire).map(presentQuestionnaire),
    FIELDS.questionnaire,
  );

  routes.read(`${base}/questionnaire/:questionnaireId`, (ctx) => {
    const id = idParam(ctx, "questionnaireId");
    const module = catalogueOf(ctx.store).module(id);
    if (!module || !isQuestionnaire(module)) throw notFound("Questionnaire", id);
    return ok(presentQuestionnaire(module));
  });

  // ---- levels

  routes.list(
    `${base}/level`,
    ({ store }) => {
      const catalogue = catalogueOf(store);
      return catalogue.all("levels").map((l) => presentLevel(catalogue, l));
    },
    FIELDS.level,
  );

  routes.read(`${base}/level/:levelId`, (ctx) => {
    const catalogue = catalogueOf(ctx.store);
    return ok(presentLevel(catalogue, levelOf(catalogue, ctx)));
  });

  routes.list(
    `${base}/level/module/:moduleId`,
    (ctx) => {
      const catalogue = catalogueOf(ctx.store);
      const id = idParam(ctx, "moduleId");
      found(catalogue.module(id), "Module", id);
      return catalogue.levelsOf(id).map((l) => presentLevel(catalogue, l));
    },
    FIELDS.level,
  );

  // A cross-reference can target several levels; a questionnaire's target field targets one.
  routes.list(
    `${base}/level/referencefield/:fieldId`,
    (ctx) => {
      const catalogue = catalogueOf(ctx.store);
      const id = idParam(ctx, "fieldId");
      const field = found(catalogue.field(id), "Field", id);
      if (!REFERENCE_FIELD_TYPES.includes(field.Type)) {
        throw badRequest(
          "NotAReferenceField",
          `Field ${id} is not a cross-reference or related-records field.`,
          id,
        );
      }
      return field.ReferencedLevelIds.flatMap((levelId) => {
        const level = catalogue.level(levelId);
        return level ? [presentLevel(catalogue, level)] : [];
      });
    },
    FIELDS.level,
  );

  routes.read(`${base}/levellayout/level/:levelId`, (ctx) => {
    const catalogue = catalogueOf(ctx.store);
    const level = levelOf(catalogue, ctx);
    return ok(found(catalogue.layoutOf(level.Id), "LevelLayout", level.Id));
  });

  // ---- fields (extra: real instances serve these; the seed does not list them)

  routes.list(
    `${base}/fielddefinition/level/:levelId`,
    (ctx) => {
      const catalogue = catalogueOf(ctx.store);
      return catalogue.fieldsOf(levelOf(catalogue, ctx).Id).map(presentField);
    },
    FIELDS.field,
  );

  // Every field of every level of a module (application, sub-form or questionnaire), level by level.
  routes.list(
    `${base}/fielddefinition/application/:applicationId`,
    (ctx) => {
      const catalogue = catalogueOf(ctx.store);
      const id = idParam(ctx, "applicationId");
      found(catalogue.module(id), "Application", id);
      return catalogue
        .levelsOf(id)
        .flatMap((level) => catalogue.fieldsOf(level.Id))
        .map(presentField);
    },
    FIELDS.field,
  );

  routes.read(`${base}/fielddefinition/:fieldId`, (ctx) => {
    const id = idParam(ctx, "fieldId");
    return ok(presentField(found(catalogueOf(ctx.store).field(id), "Field", id)));
  });

  // ---- event rules and actions

  routes.read(`${base}/eventrule/:eventRuleId`, (ctx) => {
    const id = idParam(ctx, "eventRuleId");
    return ok(found(catalogueOf(ctx.store).get("eventRules", id), "EventRule", id));
  });

  routes.list(
    `${base}/eventrule/level/:levelId`,
    (ctx) => {
      const catalogue = catalogueOf(ctx.store);
      return catalogue.eventRulesOf(levelOf(catalogue, ctx).Id);
    },
    FIELDS.eventRule,
  );

  routes.read(`${base}/eventaction/:eventActionId`, (ctx) => {
    const id = idParam(ctx, "eventActionId");
    return ok(found(catalogueOf(ctx.store).get("eventActions", id), "EventAction", id));
  });

  routes.list(
    `${base}/eventaction/eventrule/:eventRuleId`,
    (ctx) => {
      const catalogue = catalogueOf(ctx.store);
      const id = idParam(ctx, "eventRuleId");
      found(catalogue.get("eventRules", id), "EventRule", id);
      return catalogue.eventActionsOf(id);
    },
    FIELDS.eventAction,
  );

  // ---- questionnaire rules

  routes.read(`${base}/questionnairerule/:questionnaireRuleId`, (ctx) => {
    const id = idParam(ctx, "questionnaireRuleId");
    return ok(found(catalogueOf(ctx.store).get("questionnaireRules", id), "QuestionnaireRule", id));
  });

  routes.list(
    `${base}/questionnairerule/level/:levelId`,
    (ctx) => {
      const catalogue = catalogueOf(ctx.store);
      return catalogue.questionnaireRulesOf(levelOf(catalogue, ctx).Id);
    },
    FIELDS.questionnaireRule,
  );
}
