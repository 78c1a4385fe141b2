import { z } from "zod";
import { UpdateInformation } from "./user.ts";

/*
 * Metadata as the read calls return it (`core/system/level`, `application`, `eventrule`, ...).
 * References between objects are instance ids (ModuleId, LevelId, EventRuleId, field ids); GUIDs
 * and aliases are the identities that hold across instances (DESIGN §2).
 */

const int = z.number().int();
const text = z.string().nullable();

/** Field type codes, as the seed's content table lists them. */
export const FieldType = {
  Text: 1,
  Numeric: 2,
  Date: 3,
  ValuesList: 4,
  ExternalLinks: 7,
  UsersGroups: 8,
  CrossReference: 9,
  Attachment: 11,
  Image: 12,
  Matrix: 16,
  IpAddress: 19,
  RelatedRecords: 23,
  SubForm: 24,
} as const;
export type FieldType = (typeof FieldType)[keyof typeof FieldType];
export const FIELD_TYPES: readonly number[] = Object.values(FieldType);

/**
 * Field types whose content is the field's own value: no other record, sub-form row or file. What a
 * Record document, a sub-form row and an export write alike.
 */
export const PLAIN_FIELD_TYPES: readonly number[] = [
  FieldType.Text,
  FieldType.Numeric,
  FieldType.Date,
  FieldType.ValuesList,
  FieldType.UsersGroups,
  FieldType.ExternalLinks,
  FieldType.IpAddress,
];

/** Field types whose definition names the levels they point at. */
export const REFERENCE_FIELD_TYPES: readonly number[] = [FieldType.CrossReference, FieldType.RelatedRecords];

/**
 * What a field of a type needs outside its own module for a package install to resolve it: the
 * levels it points at (cross-reference, related records), the sub-form it embeds, or nothing. A
 * questionnaire's target is one of its own cross-reference fields, so it needs what that field needs.
 */
export type FieldReferenceKind = "levels" | "subform";

export function fieldReferenceKind(type: number): FieldReferenceKind | null {
  if (REFERENCE_FIELD_TYPES.includes(type)) return "levels";
  return type === FieldType.SubForm ? "subform" : null;
}

/** A reference in words, as messages name the field that needs something. */
export function fieldReferenceWord(type: number): string {
  if (type === FieldType.CrossReference) return "cross-reference";
  if (type === FieldType.RelatedRecords) return "related records";
  return type === FieldType.SubForm ? "sub-form" : "field";
}

/** The kinds of module: sub-forms and questionnaires are modules too. */
export const ModuleType = {
  Application: "Application",
  SubForm: "SubForm",
  Questionnaire: "Questionnaire",
} as const;
export type ModuleType = (typeof ModuleType)[keyof typeof ModuleType];
export const ModuleTypeSchema = z.enum(["Application", "SubForm", "Questionnaire"]);

/** What an event action does when its rule matches. */
export const EventActionType = {
  ApplyConditionalLayout: "ApplyConditionalLayout",
  RequireFields: "RequireFields",
  SetValue: "SetValue",
  SendNotification: "SendNotification",
} as const;
export type EventActionType = (typeof EventActionType)[keyof typeof EventActionType];

/** A name (and description) in another language. */
export const Translation = z.object({
  LanguageId: int,
  Name: z.string(),
  Description: text,
});
export type Translation = z.infer<typeof Translation>;

/** The `Status` of an application or questionnaire that is active, as real instances answer it. */
export const MODULE_STATUS_ACTIVE = 1;

/** `application` reads: applications and sub-forms (questionnaires have reads of their own). */
export const Application = z.object({
  Id: int,
  Guid: z.string(),
  Alias: z.string(),
  Name: z.string(),
  Description: text,
  Type: ModuleTypeSchema,
  KeepLicensed: z.boolean(),
  IsDeprecated: z.boolean(),
  /**
   * Real instances' fields that public clients read (docs/emulator.md, "Metadata fields clients
   * filter on"); optional, as an instance that egp does not know may leave them out.
   */
  Status: int.optional(),
  LanguageId: int.nullable().optional(),
  Translations: z.array(Translation),
  UpdateInformation: UpdateInformation.nullable(),
});
export type Application = z.infer<typeof Application>;

/** `questionnaire` reads: a module whose target cross-reference field points at the assessed level. */
export const Questionnaire = Application.extend({ TargetFieldId: int.nullable() });
export type Questionnaire = z.infer<typeof Questionnaire>;

/** `level` reads, in the shape real instances return. */
export const Level = z.object({
  Id: int,
  Guid: z.string(),
  ModuleId: int,
  ModuleName: z.string(),
  Name: z.string(),
  Description: text,
  Alias: z.string(),
  AllowFilter: z.boolean(),
  ASOStatus: int,
  IsDeleted: z.boolean(),
  Translations: z.array(Translation),
  UpdateInformation: UpdateInformation.nullable(),
});
export type Level = z.infer<typeof Level>;

/** One value of a values-list field; content records refer to it by `Id` (`ValuesListIds`). */
export const ValuesListValue = z.object({ Id: int, Guid: z.string(), Name: z.string() });
export type ValuesListValue = z.infer<typeof ValuesListValue>;

/** `valueslistvalue/flat/valueslist/<id>`: one value of a values list, as real instances list it. */
export const ValuesListValueRead = z.object({
  Id: int,
  Guid: z.string(),
  Name: z.string(),
  ValuesListId: int,
  /** Position in the list, from 1. */
  SortOrder: int,
  /** A flat read has no hierarchy: always null. */
  ParentId: int.nullable(),
  /**
   * Real instances' flags that public clients keep values by (docs/emulator.md, "Values-list
   * values"); optional, as an instance egp does not know may leave them out.
   */
  IsActive: z.boolean().optional(),
  IsSelectable: z.boolean().optional(),
  Depth: int.optional(),
});
export type ValuesListValueRead = z.infer<typeof ValuesListValueRead>;

/**
 * One value in `valueslistvalue/valueslist/<id>`, the hierarchical read of a values list. Public
 * answers of real instances show `Id`, `Name` and `IsSelectable`; the emulator adds the flat read's
 * other fields, which a client must not count on.
 */
export const ValuesListNodeData = z.object({
  Id: int,
  Name: z.string(),
  /** A value a record may hold; a value that only groups others is not selectable. */
  IsSelectable: z.boolean(),
  Guid: z.string().optional(),
  ValuesListId: int.optional(),
  SortOrder: int.optional(),
  ParentId: int.nullable().optional(),
});
export type ValuesListNodeData = z.infer<typeof ValuesListNodeData>;

/** A value with the values below it; `Depth` is 0 for a top-level value. */
export interface ValuesListNode {
  Data: ValuesListNodeData;
  Children: ValuesListNode[];
  Depth: number;
}
export const ValuesListNode: z.ZodType<ValuesListNode> = z.object({
  Data: ValuesListNodeData,
  get Children() {
    return z.array(ValuesListNode);
  },
  Depth: int,
});

/** `valueslistvalue/valueslist/<id>`: the list's top-level values, each with its children. */
export const ValuesListTree = z.object({ Children: z.array(ValuesListNode) });
export type ValuesListTree = z.infer<typeof ValuesListTree>;

/** `fielddefinition` reads (an emulator extra that real instances also serve). */
export const FieldDefinition = z.object({
  Id: int,
  Guid: z.string(),
  Alias: z.string(),
  Name: z.string(),
  LevelId: int,
  Type: int,
  IsActive: z.boolean(),
  IsRequired: z.boolean(),
  Description: text,
  /** Type 4 only; empty otherwise. */
  ValuesListValues: z.array(ValuesListValue),
  /** Types 9 and 23: the levels the field points at; empty otherwise. */
  ReferencedLevelIds: z.array(int),
  /** Type 24: the sub-form module, under the key real instances use; null otherwise. */
  RelatedSubformId: int.nullable(),
  Translations: z.array(Translation),
  UpdateInformation: UpdateInformation.nullable(),
  /**
   * Type 4: the values list whose values `valueslistvalue/flat/valueslist/<id>` reads; null
   * otherwise. Real instances send it; optional so that reads without it still parse. Last, where
   * answers have it: a field read whose keys come in this order is kept as parsed (schema/as-is.ts).
   */
  RelatedValuesListId: int.nullable().optional(),
});
export type FieldDefinition = z.infer<typeof FieldDefinition>;

export const LayoutSection = z.object({ Name: z.string(), FieldIds: z.array(int) });
export type LayoutSection = z.infer<typeof LayoutSection>;

/** `levellayout/level/<id>`: the fields placed on the level's form, section by section, in order. */
export const LevelLayout = z.object({
  Id: int,
  Guid: z.string(),
  LevelId: int,
  Name: z.string(),
  Sections: z.array(LayoutSection),
  UpdateInformation: UpdateInformation.nullable(),
});
export type LevelLayout = z.infer<typeof LevelLayout>;

export const EventRule = z.object({
  Id: int,
  Guid: z.string(),
  Alias: z.string(),
  Name: z.string(),
  LevelId: int,
  /** The condition as the rule builder shows it; fields are named by alias. */
  Condition: z.string(),
  /** The fields the condition reads. */
  ConditionFieldIds: z.array(int),
  IsActive: z.boolean(),
  UpdateInformation: UpdateInformation.nullable(),
});
export type EventRule = z.infer<typeof EventRule>;

export const EventAction = z.object({
  Id: int,
  Guid: z.string(),
  Alias: z.string(),
  Name: z.string(),
  EventRuleId: int,
  ActionType: z.string(),
  /** The fields the action sets, requires or shows. */
  TargetFieldIds: z.array(int),
  UpdateInformation: UpdateInformation.nullable(),
});
export type EventAction = z.infer<typeof EventAction>;

export const QuestionnaireRule = z.object({
  Id: int,
  Guid: z.string(),
  Alias: z.string(),
  Name: z.string(),
  LevelId: int,
  Condition: z.string(),
  ConditionFieldIds: z.array(int),
  /** What the rule concludes, e.g. "Flag as high risk". */
  Outcome: z.string(),
  UpdateInformation: UpdateInformation.nullable(),
});
export type QuestionnaireRule = z.infer<typeof QuestionnaireRule>;

/** Global reports have no read call; they are packageable, and the package file carries them. */
export const GlobalReport = z.object({
  Id: int,
  Guid: z.string(),
  Alias: z.string(),
  Name: z.string(),
  Description: text,
  LevelId: int,
  FieldIds: z.array(int),
  UpdateInformation: UpdateInformation.nullable(),
});
export type GlobalReport = z.infer<typeof GlobalReport>;
