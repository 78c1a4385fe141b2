import type { z } from "zod";
import {
  Application,
  EventAction,
  EventRule,
  FieldDefinition,
  Level,
  LevelLayout,
  Questionnaire,
  QuestionnaireRule,
} from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import { type Decoder, one, oneOrMany } from "../envelope.ts";
import { type ListQuery, odataParams } from "../odata.ts";
import { type Route, route } from "../route.ts";
import { InstanceVersion } from "../schemas/version.ts";

/*
 * The 16 metadata reads of the seed (POST with the GET override, no body), plus the three field
 * definition reads that the seed does not list but instances (and the emulator) serve.
 * - Objects are checked against the wire schemas and keep any other field the instance sends.
 * - The seed does not show these bodies: a read that names a collection returns an array and
 *   accepts a single envelope too.
 * - Collections take the OData options but `$select` (which would change the items' shape).
 */

const loose = {
  application: Application.loose(),
  questionnaire: Questionnaire.loose(),
  level: Level.loose(),
  layout: LevelLayout.loose(),
  field: FieldDefinition.loose(),
  eventRule: EventRule.loose(),
  eventAction: EventAction.loose(),
  questionnaireRule: QuestionnaireRule.loose(),
};

export type ApplicationRead = z.infer<typeof loose.application>;
export type QuestionnaireRead = z.infer<typeof loose.questionnaire>;
export type LevelRead = z.infer<typeof loose.level>;
export type LevelLayoutRead = z.infer<typeof loose.layout>;
export type FieldDefinitionRead = z.infer<typeof loose.field>;
export type EventRuleRead = z.infer<typeof loose.eventRule>;
export type EventActionRead = z.infer<typeof loose.eventAction>;
export type QuestionnaireRuleRead = z.infer<typeof loose.questionnaireRule>;

export function metadataResource(caller: Caller) {
  // Routes are built inside the promise, so that a bad id rejects instead of throwing.
  const read = async <T>(at: () => Route, decode: Decoder<T>, query?: ListQuery) =>
    caller.call({ method: "POST", override: true, route: at(), query: odataParams(query), decode });
  const list = <S extends z.ZodType>(at: () => Route, schema: S, query?: ListQuery) =>
    read(at, oneOrMany(schema), query);
  const single = <S extends z.ZodType>(at: () => Route, schema: S) => read(at, one(schema));

  return {
    applications: (query?: ListQuery) =>
      list(() => route`/core/system/application`, loose.application, query),
    application: (applicationId: number) =>
      single(
        () => route`/core/system/application/${idOf("applicationId", applicationId)}`,
        loose.application,
      ),
    questionnaires: (query?: ListQuery) =>
      list(() => route`/core/system/questionnaire`, loose.questionnaire, query),
    questionnaire: (questionnaireId: number) =>
      single(
        () => route`/core/system/questionnaire/${idOf("questionnaireId", questionnaireId)}`,
        loose.questionnaire,
      ),
    levels: (query?: ListQuery) => list(() => route`/core/system/level`, loose.level, query),
    level: (levelId: number) =>
      single(() => route`/core/system/level/${idOf("levelId", levelId)}`, loose.level),
    levelsByModule: (moduleId: number, query?: ListQuery) =>
      list(() => route`/core/system/level/module/${idOf("moduleId", moduleId)}`, loose.level, query),
    /** A cross-reference can target several levels, so this is a collection. */
    levelsByReferenceField: (fieldId: number, query?: ListQuery) =>
      list(() => route`/core/system/level/referencefield/${idOf("fieldId", fieldId)}`, loose.level, query),
    levelLayout: (levelId: number) =>
      single(() => route`/core/system/levellayout/level/${idOf("levelId", levelId)}`, loose.layout),
    eventRule: (eventRuleId: number) =>
      single(() => route`/core/system/eventrule/${idOf("eventRuleId", eventRuleId)}`, loose.eventRule),
    eventRulesByLevel: (levelId: number, query?: ListQuery) =>
      list(() => route`/core/system/eventrule/level/${idOf("levelId", levelId)}`, loose.eventRule, query),
    eventAction: (eventActionId: number) =>
      single(
        () => route`/core/system/eventaction/${idOf("eventActionId", eventActionId)}`,
        loose.eventAction,
      ),
    eventActionsByRule: (eventRuleId: number, query?: ListQuery) =>
      list(
        () => route`/core/system/eventaction/eventrule/${idOf("eventRuleId", eventRuleId)}`,
        loose.eventAction,
        query,
      ),
    questionnaireRule: (ruleId: number) =>
      single(
        () => route`/core/system/questionnairerule/${idOf("questionnaireRuleId", ruleId)}`,
        loose.questionnaireRule,
      ),
    questionnaireRulesByLevel: (levelId: number, query?: ListQuery) =>
      list(
        () => route`/core/system/questionnairerule/level/${idOf("levelId", levelId)}`,
        loose.questionnaireRule,
        query,
      ),
    /** The instance's release, on the release's base path. */
    version: () => single(() => route`/core/system/applicationinfo/version`, InstanceVersion),

    /** Not in the seed: the field definitions of a level. */
    fieldDefinitions: (levelId: number, query?: ListQuery) =>
      list(() => route`/core/system/fielddefinition/level/${idOf("levelId", levelId)}`, loose.field, query),
    /** Not in the seed: every field of an application's levels. */
    fieldDefinitionsByApplication: (applicationId: number, query?: ListQuery) =>
      list(
        () => route`/core/system/fielddefinition/application/${idOf("applicationId", applicationId)}`,
        loose.field,
        query,
      ),
    /** Not in the seed: one field definition. */
    fieldDefinition: (fieldId: number) =>
      single(() => route`/core/system/fielddefinition/${idOf("fieldId", fieldId)}`, loose.field),
  };
}

export type MetadataResource = ReturnType<typeof metadataResource>;
