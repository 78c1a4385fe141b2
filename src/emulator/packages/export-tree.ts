import type { PackageObjectType } from "../../wire/index.ts";
import type { Catalogue, FieldRecord, LevelRecord, ModuleRecord } from "../catalogue/model.ts";
import type { PackagedField, PackagedLevel, PackagedModule, PackageObjectFile } from "./file-format.ts";

/*
 * A packaged object's whole metadata tree, with every reference rewritten from an instance id to a
 * GUID: ids mean nothing on the instance the package goes to.
 */

/** The catalogue object a package entry names, if it exists and its kind fits the entry's Type. */
export function findPackageable(
  catalogue: Catalogue,
  guid: string,
  type: PackageObjectType,
): { name: string } | undefined {
  if (type === "GlobalReport") {
    const report = catalogue.byGuid("reports", guid);
    return report ? { name: report.Name } : undefined;
  }
  const module = catalogue.byGuid("modules", guid);
  if (!module) return undefined;
  // A questionnaire is a module of its own kind; it travels as an Application.
  const fits = type === "SubForm" ? module.Type === "SubForm" : module.Type !== "SubForm";
  return fits ? { name: module.Name } : undefined;
}

function guidsOf(catalogue: Catalogue, kind: "levels" | "fields" | "modules", ids: number[]): string[] {
  return ids.map((id) => {
    const record = catalogue.get(kind, id);
    if (!record) throw new Error(`catalogue is inconsistent: ${kind} ${id} is referenced but missing`);
    return record.Guid;
  });
}

function exportField(catalogue: Catalogue, field: FieldRecord): PackagedField {
  return {
    Guid: field.Guid,
    Alias: field.Alias,
    Name: field.Name,
    Type: field.Type,
    IsActive: field.IsActive,
    IsRequired: field.IsRequired,
    Description: field.Description,
    Values: field.ValuesListValues.map((v) => ({ Guid: v.Guid, Name: v.Name })),
    ReferencedLevelGuids: guidsOf(catalogue, "levels", field.ReferencedLevelIds),
    SubformGuid:
      field.SubformModuleId === null
        ? null
        : (guidsOf(catalogue, "modules", [field.SubformModuleId])[0] ?? null),
    Translations: field.Translations,
  };
}

function exportLevel(catalogue: Catalogue, level: LevelRecord): PackagedLevel {
  const fieldGuids = (ids: number[]) => guidsOf(catalogue, "fields", ids);
  const layout = catalogue.layoutOf(level.Id);
  return {
    Guid: level.Guid,
    Alias: level.Alias,
    Name: level.Name,
    Description: level.Description,
    AllowFilter: level.AllowFilter,
    ASOStatus: level.ASOStatus,
    Translations: level.Translations,
    Fields: catalogue.fieldsOf(level.Id).map((f) => exportField(catalogue, f)),
    Layout: layout
      ? {
          Guid: layout.Guid,
          Name: layout.Name,
          Sections: layout.Sections.map((s) => ({ Name: s.Name, FieldGuids: fieldGuids(s.FieldIds) })),
        }
      : null,
    EventRules: catalogue.eventRulesOf(level.Id).map((rule) => ({
      Guid: rule.Guid,
      Alias: rule.Alias,
      Name: rule.Name,
      Condition: rule.Condition,
      ConditionFieldGuids: fieldGuids(rule.ConditionFieldIds),
      IsActive: rule.IsActive,
      Actions: catalogue.eventActionsOf(rule.Id).map((action) => ({
        Guid: action.Guid,
        Alias: action.Alias,
        Name: action.Name,
        ActionType: action.ActionType,
        TargetFieldGuids: fieldGuids(action.TargetFieldIds),
      })),
    })),
    QuestionnaireRules: catalogue.questionnaireRulesOf(level.Id).map((rule) => ({
      Guid: rule.Guid,
      Alias: rule.Alias,
      Name: rule.Name,
      Condition: rule.Condition,
      ConditionFieldGuids: fieldGuids(rule.ConditionFieldIds),
      Outcome: rule.Outcome,
    })),
  };
}

export function exportModule(catalogue: Catalogue, module: ModuleRecord): PackagedModule {
  return {
    Guid: module.Guid,
    Alias: module.Alias,
    Name: module.Name,
    Description: module.Description,
    Type: module.Type,
    KeepLicensed: module.KeepLicensed,
    IsDeprecated: module.IsDeprecated,
    TargetFieldGuid:
      module.TargetFieldId === null
        ? null
        : (guidsOf(catalogue, "fields", [module.TargetFieldId])[0] ?? null),
    Translations: module.Translations,
    Levels: catalogue.levelsOf(module.Id).map((l) => exportLevel(catalogue, l)),
  };
}

/** The object file of one package entry; undefined when the object no longer exists. */
export function exportObject(
  catalogue: Catalogue,
  guid: string,
  type: PackageObjectType,
): PackageObjectFile | undefined {
  if (!findPackageable(catalogue, guid, type)) return undefined;
  if (type === "GlobalReport") {
    const report = catalogue.byGuid("reports", guid);
    if (!report) return undefined;
    const level = catalogue.level(report.LevelId);
    if (!level) throw new Error(`catalogue is inconsistent: report ${report.Id} names a missing level`);
    return {
      Type: "GlobalReport",
      Report: {
        Guid: report.Guid,
        Alias: report.Alias,
        Name: report.Name,
        Description: report.Description,
        LevelGuid: level.Guid,
        FieldGuids: guidsOf(catalogue, "fields", report.FieldIds),
      },
    };
  }
  const module = catalogue.byGuid("modules", guid);
  if (!module) return undefined;
  return type === "SubForm"
    ? { Type: "SubForm", Module: exportModule(catalogue, module) }
    : { Type: "Application", Module: exportModule(catalogue, module) };
}
