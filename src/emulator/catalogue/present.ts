import {
  type Application,
  type FieldDefinition,
  FieldType,
  type Level,
  MODULE_STATUS_ACTIVE,
  type Questionnaire,
  type ValuesListTree,
  type ValuesListValueRead,
} from "../../wire/index.ts";
import type { Catalogue, FieldRecord, LevelRecord, ModuleRecord } from "./model.ts";

/*
 * Records are stored nearly as the reads return them; these functions add what is derived
 * (a level's ModuleName) and drop what a read does not show.
 */

/** The language of a module's own name, the instance's default one. */
const DEFAULT_LANGUAGE_ID = 1;

/**
 * A module in the wire schema's key order, with the fields real instances answer that the catalogue
 * does not keep: every module of the emulator is active and named in the default language, so a
 * record stored without them (every data file, every seed) reads as such.
 */
function presentModule(module: ModuleRecord): Questionnaire {
  return {
    Id: module.Id,
    Guid: module.Guid,
    Alias: module.Alias,
    Name: module.Name,
    Description: module.Description,
    Type: module.Type,
    KeepLicensed: module.KeepLicensed,
    IsDeprecated: module.IsDeprecated,
    Status: module.Status ?? MODULE_STATUS_ACTIVE,
    LanguageId: module.LanguageId ?? DEFAULT_LANGUAGE_ID,
    Translations: module.Translations,
    UpdateInformation: module.UpdateInformation,
    TargetFieldId: module.TargetFieldId,
  };
}

export function presentApplication(module: ModuleRecord): Application {
  const { TargetFieldId: _target, ...application } = presentModule(module);
  return application as Application;
}

export function presentQuestionnaire(module: ModuleRecord): Questionnaire {
  return presentModule(module);
}

export function presentLevel(catalogue: Catalogue, level: LevelRecord): Level {
  const { Id, Guid, ModuleId, Name, Description, Alias, AllowFilter, ASOStatus, IsDeleted } = level;
  return {
    Id,
    Guid,
    ModuleId,
    ModuleName: catalogue.module(ModuleId)?.Name ?? "",
    Name,
    Description,
    Alias,
    AllowFilter,
    ASOStatus,
    IsDeleted,
    Translations: level.Translations,
    UpdateInformation: level.UpdateInformation,
  };
}

/**
 * Each values-list field has a list of its own, numbered as the field is: the catalogue keeps a
 * field's values on the field, and nothing in the emulator shares a list between fields.
 */
export function valuesListIdOf(field: FieldRecord): number | null {
  return field.Type === FieldType.ValuesList ? field.Id : null;
}

/** Keys in the wire schema's order, so that a client keeps a read as parsed (src/schema/as-is.ts). */
export function presentField(field: FieldRecord): FieldDefinition {
  return {
    Id: field.Id,
    Guid: field.Guid,
    Alias: field.Alias,
    Name: field.Name,
    LevelId: field.LevelId,
    Type: field.Type,
    IsActive: field.IsActive,
    IsRequired: field.IsRequired,
    Description: field.Description,
    ValuesListValues: field.ValuesListValues,
    ReferencedLevelIds: field.ReferencedLevelIds,
    RelatedSubformId: field.SubformModuleId,
    Translations: field.Translations,
    UpdateInformation: field.UpdateInformation,
    RelatedValuesListId: valuesListIdOf(field),
  };
}

export function presentValuesListValues(field: FieldRecord): ValuesListValueRead[] {
  const listId = valuesListIdOf(field);
  if (listId === null) return [];
  return field.ValuesListValues.map((value, index) => ({
    Id: value.Id,
    Guid: value.Guid,
    Name: value.Name,
    ValuesListId: listId,
    SortOrder: index + 1,
    ParentId: null,
    IsActive: true,
    IsSelectable: true,
    Depth: 0,
  }));
}

/**
 * The hierarchical read of the same values: the emulator's lists are flat, so every value is a
 * selectable top-level node (`Depth` 0, no children), in the flat read's order and with its fields.
 */
export function presentValuesListTree(field: FieldRecord): ValuesListTree {
  return {
    Children: presentValuesListValues(field).map(({ Id, Name, Guid, ValuesListId, SortOrder, ParentId }) => ({
      Data: { Id, Name, IsSelectable: true, Guid, ValuesListId, SortOrder, ParentId },
      Children: [],
      Depth: 0,
    })),
  };
}
