import type { Application, Level, Questionnaire } from "../../wire/index.ts";
import type { Catalogue, LevelRecord, ModuleRecord } from "./model.ts";

/*
 * Records are stored nearly as the reads return them; these functions add what is derived
 * (a level's ModuleName) and drop what a read does not show.
 */

export function presentApplication(module: ModuleRecord): Application {
  const { TargetFieldId: _target, ...application } = module;
  return application as Application;
}

export function presentQuestionnaire(module: ModuleRecord): Questionnaire {
  return module as Questionnaire;
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
