import type { z } from "zod";
import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import { type Decoder, one, oneOrMany } from "../envelope.ts";
import type { Route } from "../route.ts";
import { route } from "../route.ts";
import {
  Application,
  EventAction,
  EventRule,
  InstanceVersion,
  Level,
  LevelLayout,
  Questionnaire,
  QuestionnaireRule,
} from "../schemas/metadata.ts";

/*
 * The 16 metadata reads: POST with the GET override, no body. The seed does not show their
 * bodies; a read that names a collection returns an array, and accepts a single envelope too.
 */

export function metadataResource(caller: Caller) {
  const read = <T>(at: Route, decode: Decoder<T>) =>
    caller.call({ method: "POST", override: true, route: at, decode });
  const list = <S extends z.ZodType>(at: Route, schema: S) => read(at, oneOrMany(schema));
  const single = <S extends z.ZodType>(at: Route, schema: S) => read(at, one(schema));

  return {
    levels: () => list(route`/core/system/level`, Level),
    level: (levelId: number) => single(route`/core/system/level/${idOf("levelId", levelId)}`, Level),
    levelsByModule: (moduleId: number) =>
      list(route`/core/system/level/module/${idOf("moduleId", moduleId)}`, Level),
    /** A cross-reference can target several levels, so this is a collection. */
    levelsByReferenceField: (fieldId: number) =>
      list(route`/core/system/level/referencefield/${idOf("fieldId", fieldId)}`, Level),
    levelLayouts: (levelId: number) =>
      list(route`/core/system/levellayout/level/${idOf("levelId", levelId)}`, LevelLayout),
    eventAction: (eventActionId: number) =>
      single(route`/core/system/eventaction/${idOf("eventActionId", eventActionId)}`, EventAction),
    eventActionsByRule: (eventRuleId: number) =>
      list(route`/core/system/eventaction/eventrule/${idOf("eventRuleId", eventRuleId)}`, EventAction),
    eventRule: (eventRuleId: number) =>
      single(route`/core/system/eventrule/${idOf("eventRuleId", eventRuleId)}`, EventRule),
    eventRulesByLevel: (levelId: number) =>
      list(route`/core/system/eventrule/level/${idOf("levelId", levelId)}`, EventRule),
    questionnaires: () => list(route`/core/system/questionnaire`, Questionnaire),
    questionnaire: (questionnaireId: number) =>
      single(route`/core/system/questionnaire/${idOf("questionnaireId", questionnaireId)}`, Questionnaire),
    questionnaireRule: (ruleId: number) =>
      single(route`/core/system/questionnairerule/${idOf("questionnaireRuleId", ruleId)}`, QuestionnaireRule),
    questionnaireRulesByLevel: (levelId: number) =>
      list(route`/core/system/questionnairerule/level/${idOf("levelId", levelId)}`, QuestionnaireRule),
    applications: () => list(route`/core/system/application`, Application),
    application: (applicationId: number) =>
      single(route`/core/system/application/${idOf("applicationId", applicationId)}`, Application),
    /** The instance's release, on the release's base path. */
    version: () => single(route`/core/system/applicationinfo/version`, InstanceVersion),
  };
}

export type MetadataResource = ReturnType<typeof metadataResource>;
