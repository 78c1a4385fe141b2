import type { EventActionType, FieldType, ModuleType, Translation } from "../../wire/index.ts";
import { guidFor } from "./guid.ts";
import { type Catalogue, type FieldRecord, type LevelRecord, updateInformation } from "./model.ts";

/*
 * Builds catalogue records from a compact declaration, for the seeds. Objects name each other by
 * key (`module/level` for a level, a plain field key inside its own level); the builder assigns
 * instance ids and derives every GUID from the namespace and the key path, so that two instances
 * built from the same declaration agree on GUIDs and differ only in ids.
 */

export interface FieldSpec {
  key: string;
  name: string;
  type: FieldType;
  required?: boolean;
  active?: boolean;
  description?: string;
  /** Type 4. */
  values?: string[];
  /** Types 9 and 23: `module/level` keys. */
  references?: string[];
  /** Type 24: a sub-form's module key. */
  subform?: string;
  translations?: Translation[];
}

export interface LayoutSpec {
  name: string;
  sections: Array<{ name: string; fields: string[] }>;
}

export interface ActionSpec {
  key: string;
  name: string;
  type: EventActionType;
  targets: string[];
}

export interface RuleSpec {
  key: string;
  name: string;
  condition: string;
  fields: string[];
  active?: boolean;
  actions: ActionSpec[];
}

export interface QuestionnaireRuleSpec {
  key: string;
  name: string;
  condition: string;
  fields: string[];
  outcome: string;
}

export interface LevelSpec {
  key: string;
  name: string;
  description?: string;
  translations?: Translation[];
  fields: FieldSpec[];
  layout: LayoutSpec;
  rules?: RuleSpec[];
  questionnaireRules?: QuestionnaireRuleSpec[];
}

export interface ModuleSpec {
  key: string;
  type: ModuleType;
  name: string;
  description: string | null;
  keepLicensed?: boolean;
  deprecated?: boolean;
  translations?: Translation[];
  /** Questionnaires: `level/field` of the target cross-reference, inside this module. */
  target?: string;
  levels: LevelSpec[];
}

export interface ReportSpec {
  key: string;
  name: string;
  description: string | null;
  /** `module/level`. */
  level: string;
  /** Field keys of that level, in column order. */
  fields: string[];
}

export interface CatalogueSpec {
  /** Prefix of every derived GUID, e.g. `egp-demo`. */
  namespace: string;
  /** CreateDate and UpdateDate of every record. */
  date: string;
  modules: ModuleSpec[];
  reports: ReportSpec[];
}

/** Aliases follow the platform's habit: the name with every run of other characters as `_`. */
export function aliasOf(name: string): string {
  return name.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
}

class Keys {
  private readonly ids = new Map<string, number>();

  set(key: string, id: number): void {
    this.ids.set(key, id);
  }

  get(key: string, what: string): number {
    const id = this.ids.get(key);
    if (id === undefined) throw new Error(`catalogue spec: unknown ${what} "${key}"`);
    return id;
  }
}

export function buildCatalogue(catalogue: Catalogue, spec: CatalogueSpec): void {
  const info = () => updateInformation(spec.date, 1);
  const guid = (path: string) => guidFor(`${spec.namespace}:${path}`);
  const modules = new Keys();
  const levels = new Keys();
  const fields = new Keys();

  // Pass 1: the objects that others refer to.
  for (const m of spec.modules) {
    const moduleId = catalogue.nextId("modules");
    modules.set(m.key, moduleId);
    catalogue.put("modules", {
      Id: moduleId,
      Guid: guid(m.key),
      Alias: aliasOf(m.name),
      Name: m.name,
      Description: m.description,
      Type: m.type,
      KeepLicensed: m.keepLicensed ?? false,
      IsDeprecated: m.deprecated ?? false,
      TargetFieldId: null,
      Translations: m.translations ?? [],
      UpdateInformation: info(),
    });
    for (const l of m.levels) {
      const levelPath = `${m.key}/${l.key}`;
      const level: LevelRecord = {
        Id: catalogue.nextId("levels"),
        Guid: guid(levelPath),
        ModuleId: moduleId,
        Name: l.name,
        Description: l.description ?? null,
        Alias: aliasOf(l.name),
        AllowFilter: true,
        ASOStatus: 0,
        IsDeleted: false,
        Translations: l.translations ?? [],
        UpdateInformation: info(),
      };
      levels.set(levelPath, catalogue.put("levels", level).Id);
      for (const f of l.fields) {
        const fieldPath = `${levelPath}/${f.key}`;
        const field: FieldRecord = {
          Id: catalogue.nextId("fields"),
          Guid: guid(fieldPath),
          Alias: aliasOf(f.name),
          Name: f.name,
          LevelId: level.Id,
          Type: f.type,
          IsActive: f.active ?? true,
          IsRequired: f.required ?? false,
          Description: f.description ?? null,
          ValuesListValues: (f.values ?? []).map((name) => ({
            Id: catalogue.nextId("values"),
            Guid: guid(`${fieldPath}=${name}`),
            Name: name,
          })),
          ReferencedLevelIds: [],
          SubformModuleId: null,
          Translations: f.translations ?? [],
          UpdateInformation: info(),
        };
        fields.set(fieldPath, catalogue.put("fields", field).Id);
      }
    }
  }

  // Pass 2: everything that refers to something.
  for (const m of spec.modules) {
    for (const l of m.levels) {
      const levelPath = `${m.key}/${l.key}`;
      const levelId = levels.get(levelPath, "level");
      const fieldId = (key: string) => fields.get(`${levelPath}/${key}`, "field");
      for (const f of l.fields) {
        const field = catalogue.get("fields", fieldId(f.key)) as FieldRecord;
        field.ReferencedLevelIds = (f.references ?? []).map((key) => levels.get(key, "level"));
        field.SubformModuleId = f.subform ? modules.get(f.subform, "module") : null;
      }
      catalogue.put("layouts", {
        Id: catalogue.nextId("layouts"),
        Guid: guid(`${levelPath}#layout`),
        LevelId: levelId,
        Name: l.layout.name,
        Sections: l.layout.sections.map((s) => ({ Name: s.name, FieldIds: s.fields.map(fieldId) })),
        UpdateInformation: info(),
      });
      for (const r of l.rules ?? []) {
        const rulePath = `${levelPath}!${r.key}`;
        const rule = catalogue.put("eventRules", {
          Id: catalogue.nextId("eventRules"),
          Guid: guid(rulePath),
          Alias: aliasOf(r.name),
          Name: r.name,
          LevelId: levelId,
          Condition: r.condition,
          ConditionFieldIds: r.fields.map(fieldId),
          IsActive: r.active ?? true,
          UpdateInformation: info(),
        });
        for (const a of r.actions) {
          catalogue.put("eventActions", {
            Id: catalogue.nextId("eventActions"),
            Guid: guid(`${rulePath}!${a.key}`),
            Alias: aliasOf(a.name),
            Name: a.name,
            EventRuleId: rule.Id,
            ActionType: a.type,
            TargetFieldIds: a.targets.map(fieldId),
            UpdateInformation: info(),
          });
        }
      }
      for (const q of l.questionnaireRules ?? []) {
        catalogue.put("questionnaireRules", {
          Id: catalogue.nextId("questionnaireRules"),
          Guid: guid(`${levelPath}?${q.key}`),
          Alias: aliasOf(q.name),
          Name: q.name,
          LevelId: levelId,
          Condition: q.condition,
          ConditionFieldIds: q.fields.map(fieldId),
          Outcome: q.outcome,
          UpdateInformation: info(),
        });
      }
    }
    if (m.target) {
      const module = catalogue.module(modules.get(m.key, "module"));
      if (module) module.TargetFieldId = fields.get(`${m.key}/${m.target}`, "field");
    }
  }

  for (const r of spec.reports) {
    const levelId = levels.get(r.level, "level");
    catalogue.put("reports", {
      Id: catalogue.nextId("reports"),
      Guid: guid(`report/${r.key}`),
      Alias: aliasOf(r.name),
      Name: r.name,
      Description: r.description,
      LevelId: levelId,
      FieldIds: r.fields.map((key) => fields.get(`${r.level}/${key}`, "field")),
      UpdateInformation: info(),
    });
  }
  catalogue.invalidate();
}
