import { z } from "zod";

/*
 * The seed shows few fields of metadata: `Name`, `Description`, `KeepLicensed` and `IsDeprecated`
 * of applications, nothing of levels, layouts, rules, actions or questionnaires. The client checks
 * only the keys it relies on and keeps every other field as the instance sent it (loose objects),
 * so that nothing is lost on the way to the state reader.
 */

const int = z.number().int();
const text = z.string().nullable().optional();

/** What every metadata object is expected to carry; the rest passes through. */
const identity = { Id: int, Name: text, Alias: text, Guid: text };

export const Level = z.looseObject({ ...identity });
export type Level = z.infer<typeof Level>;

export const LevelLayout = z.looseObject({ Id: int.optional(), LevelId: int.optional() });
export type LevelLayout = z.infer<typeof LevelLayout>;

export const EventRule = z.looseObject({ ...identity });
export type EventRule = z.infer<typeof EventRule>;

export const EventAction = z.looseObject({ ...identity });
export type EventAction = z.infer<typeof EventAction>;

export const Questionnaire = z.looseObject({ ...identity });
export type Questionnaire = z.infer<typeof Questionnaire>;

export const QuestionnaireRule = z.looseObject({ ...identity });
export type QuestionnaireRule = z.infer<typeof QuestionnaireRule>;

export const Application = z.looseObject({
  ...identity,
  Description: text,
  KeepLicensed: z.boolean().optional(),
  IsDeprecated: z.boolean().optional(),
});
export type Application = z.infer<typeof Application>;

/** The version read: the seed shows no body; instances answer the release as `Version`. */
export const InstanceVersion = z.looseObject({ Version: z.string(), InstanceName: z.string().optional() });
export type InstanceVersion = z.infer<typeof InstanceVersion>;
