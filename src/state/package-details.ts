import {
  type Application,
  type EventAction,
  type EventRule,
  type FieldDefinition,
  FieldType,
  type Level,
  type LevelLayout,
  type QuestionnaireRule,
} from "../wire/index.ts";
import type { PartDetail } from "./live-objects.ts";

/*
 * The parts of an object's tree as a person reads them, under the same keys as the fingerprinted
 * parts (`field:<guid>`…): other parts named instead of their GUIDs or ids, codes as words. Built
 * only for objects that differ, after fingerprints have been compared.
 */

/** The instance's applications, sub-forms, questionnaires and levels, with their ids mapped to GUIDs (package-objects.ts reads it). */
export interface Catalogue {
  modules: Application[];
  levels: Level[];
  /** Instance id → GUID (lower case), built once per read. */
  moduleGuid: Map<number, string>;
  levelGuid: Map<number, string>;
  levelById: Map<number, Level>;
}

/** One application's metadata tree as the instance gives it. */
export interface ModuleTree {
  module: Application;
  levels: Array<{
    level: Level;
    fields: FieldDefinition[];
    layout: LevelLayout | undefined;
    rules: Array<{ rule: EventRule; actions: EventAction[] }>;
    /** A questionnaire's levels only: its rules (an application's levels have none read). */
    questionnaireRules?: QuestionnaireRule[];
  }>;
}

const TYPE_NAMES = new Map<number, string>(
  Object.entries(FieldType).map(([name, code]) => [code, name.replace(/([a-z])([A-Z])/g, "$1 $2")]),
);

function lower(guid: string): string {
  return guid.toLowerCase();
}

const sorted = (names: string[]) => [...names].sort((a, b) => a.localeCompare(b));

export function describeTree(tree: ModuleTree, catalogue: Catalogue): Record<string, PartDetail> {
  const moduleName = new Map(catalogue.modules.map((m) => [m.Id, m.Name]));
  const levelName = new Map(catalogue.levels.map((l) => [l.Id, l.Name]));
  const fieldName = new Map<number, string>();
  for (const { fields } of tree.levels) for (const f of fields) fieldName.set(f.Id, f.Name);
  const field = (id: number) => fieldName.get(id) ?? `field #${id}`;

  const { module } = tree;
  const details: Record<string, PartDetail> = {
    [`module:${lower(module.Guid)}`]: {
      name: module.Name,
      properties: {
        name: module.Name,
        alias: module.Alias,
        description: module.Description ?? null,
        "keep licensed": module.KeepLicensed,
        deprecated: module.IsDeprecated,
      },
    },
  };
  for (const { level, fields, layout, rules, questionnaireRules } of tree.levels) {
    details[`level:${lower(level.Guid)}`] = {
      name: level.Name,
      properties: {
        name: level.Name,
        alias: level.Alias,
        description: level.Description ?? null,
        "allow filter": level.AllowFilter,
        deleted: level.IsDeleted,
      },
    };
    for (const f of fields) {
      details[`field:${lower(f.Guid)}`] = {
        name: f.Name,
        parent: level.Name,
        properties: {
          name: f.Name,
          alias: f.Alias,
          type: TYPE_NAMES.get(f.Type) ?? `type ${f.Type}`,
          active: f.IsActive,
          required: f.IsRequired,
          description: f.Description ?? null,
          values: sorted(f.ValuesListValues.map((v) => v.Name)),
          references: sorted(f.ReferencedLevelIds.map((id) => levelName.get(id) ?? `level #${id}`)),
          "sub-form":
            f.RelatedSubformId === null
              ? null
              : (moduleName.get(f.RelatedSubformId) ?? `module #${f.RelatedSubformId}`),
        },
      };
    }
    if (layout) {
      details[`layout:${lower(layout.Guid)}`] = {
        name: layout.Name,
        parent: level.Name,
        properties: { name: layout.Name },
        sections: layout.Sections.map((s) => ({ name: s.Name, fields: s.FieldIds.map(field) })),
      };
    }
    /** A rule's (event or questionnaire) name, alias and condition, as people read them. */
    const conditionOf = (rule: {
      Name: string;
      Alias: string;
      Condition: string;
      ConditionFieldIds: readonly number[];
    }) => ({
      name: rule.Name,
      alias: rule.Alias,
      condition: rule.Condition,
      "condition fields": sorted(rule.ConditionFieldIds.map(field)),
    });
    for (const { rule, actions } of rules) {
      details[`rule:${lower(rule.Guid)}`] = {
        name: rule.Name,
        parent: level.Name,
        properties: { ...conditionOf(rule), active: rule.IsActive },
      };
      for (const action of actions) {
        details[`action:${lower(action.Guid)}`] = {
          name: action.Name,
          parent: rule.Name,
          properties: {
            name: action.Name,
            alias: action.Alias,
            "action type": action.ActionType,
            "target fields": action.TargetFieldIds.map(field),
          },
        };
      }
    }
    for (const rule of questionnaireRules ?? []) {
      details[`questionnaireRule:${lower(rule.Guid)}`] = {
        name: rule.Name,
        parent: level.Name,
        properties: { ...conditionOf(rule), outcome: rule.Outcome },
      };
    }
  }
  return details;
}
