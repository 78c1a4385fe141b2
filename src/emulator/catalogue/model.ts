import type {
  Application,
  EventAction,
  EventRule,
  FieldDefinition,
  GlobalReport,
  Level,
  LevelLayout,
  ModuleType,
  QuestionnaireRule,
  UpdateInformation,
} from "../../wire/index.ts";
import type { Store } from "../store.ts";

/*
 * The metadata catalogue: modules (applications, sub-forms, questionnaires) → levels → fields, with
 * a layout per level, event rules and actions, questionnaire rules and global reports. It lives in
 * `store.data.catalogue` as plain JSON (persisted by `--data`); references between records are
 * instance ids, as on a real instance. The catalogue keeps its own id counters, so that an install
 * can work on a copy and swap it in whole, or drop it and leave nothing behind.
 */

export type ModuleRecord = Omit<Application, "Type"> & { Type: ModuleType; TargetFieldId: number | null };
export type LevelRecord = Omit<Level, "ModuleName">;
/**
 * A field as stored. The sub-form's id keeps the name data files have always held it under;
 * reads answer it as `RelatedSubformId`, the key of real instances (`presentField`).
 */
export type FieldRecord = Omit<FieldDefinition, "RelatedSubformId" | "RelatedValuesListId"> & {
  SubformModuleId: number | null;
};
export type LayoutRecord = LevelLayout;
export type EventRuleRecord = EventRule;
export type EventActionRecord = EventAction;
export type QuestionnaireRuleRecord = QuestionnaireRule;
export type ReportRecord = GlobalReport;

export interface CatalogueData {
  counters: Record<string, number>;
  modules: Record<string, ModuleRecord>;
  levels: Record<string, LevelRecord>;
  fields: Record<string, FieldRecord>;
  layouts: Record<string, LayoutRecord>;
  eventRules: Record<string, EventRuleRecord>;
  eventActions: Record<string, EventActionRecord>;
  questionnaireRules: Record<string, QuestionnaireRuleRecord>;
  reports: Record<string, ReportRecord>;
}

export interface RecordByKind {
  modules: ModuleRecord;
  levels: LevelRecord;
  fields: FieldRecord;
  layouts: LayoutRecord;
  eventRules: EventRuleRecord;
  eventActions: EventActionRecord;
  questionnaireRules: QuestionnaireRuleRecord;
  reports: ReportRecord;
}
export type Kind = keyof RecordByKind;
export const KINDS: readonly Kind[] = [
  "modules",
  "levels",
  "fields",
  "layouts",
  "eventRules",
  "eventActions",
  "questionnaireRules",
  "reports",
];

/** Counter names: values-list values are numbered too, since content records refer to their ids. */
export type Counter = Kind | "values";

export function emptyCatalogue(): CatalogueData {
  return {
    counters: {},
    modules: {},
    levels: {},
    fields: {},
    layouts: {},
    eventRules: {},
    eventActions: {},
    questionnaireRules: {},
    reports: {},
  };
}

export function updateInformation(date: string, login: number): UpdateInformation {
  return { CreateDate: date, UpdateDate: date, CreateLogin: login, UpdateLogin: login };
}

function byId<T extends { Id: number }>(records: Record<string, T>): T[] {
  return Object.values(records).sort((a, b) => a.Id - b.Id);
}

function groupBy<T>(items: T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list) list.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

interface Indexes {
  levelsByModule: Map<number, LevelRecord[]>;
  fieldsByLevel: Map<number, FieldRecord[]>;
  layoutByLevel: Map<number, LayoutRecord>;
  rulesByLevel: Map<number, EventRuleRecord[]>;
  actionsByRule: Map<number, EventActionRecord[]>;
  questionnaireRulesByLevel: Map<number, QuestionnaireRuleRecord[]>;
}

const guidKey = (kind: Kind, guid: string) => `${kind}:${guid.toLowerCase()}`;

/**
 * Typed access to the catalogue with lookup indexes, built on first use. The GUID index follows
 * every write through this class (an install looks GUIDs up between writes); the by-parent indexes
 * are dropped by a write and rebuilt when next needed. Code that edits records in place calls
 * `invalidate()`.
 */
export class Catalogue {
  readonly data: CatalogueData;
  private indexes: Indexes | undefined;
  private guids: Map<string, number> | undefined;

  constructor(data: CatalogueData) {
    this.data = data;
  }

  nextId(counter: Counter): number {
    const next = (this.data.counters[counter] ?? 0) + 1;
    this.data.counters[counter] = next;
    return next;
  }

  /** Starts a counter at `value` (the next id is value + 1), so that instances number differently. */
  startCounter(counter: Counter, value: number): void {
    this.data.counters[counter] = Math.max(this.data.counters[counter] ?? 0, value);
  }

  put<K extends Kind>(kind: K, record: RecordByKind[K]): RecordByKind[K] {
    const records = this.data[kind] as Record<string, RecordByKind[K]>;
    const previous = records[String(record.Id)];
    records[String(record.Id)] = record;
    this.indexes = undefined;
    if (this.guids) {
      if (previous) this.guids.delete(guidKey(kind, previous.Guid));
      this.guids.set(guidKey(kind, record.Guid), record.Id);
    }
    return record;
  }

  invalidate(): void {
    this.indexes = undefined;
    this.guids = undefined;
  }

  get<K extends Kind>(kind: K, id: number): RecordByKind[K] | undefined {
    return (this.data[kind] as Record<string, RecordByKind[K]>)[String(id)];
  }

  all<K extends Kind>(kind: K): RecordByKind[K][] {
    return byId(this.data[kind] as Record<string, RecordByKind[K]>);
  }

  /** The record of a kind with this GUID (compared case-insensitively, as GUIDs are). */
  byGuid<K extends Kind>(kind: K, guid: string): RecordByKind[K] | undefined {
    const id = this.guidIndex().get(guidKey(kind, guid));
    return id === undefined ? undefined : this.get(kind, id);
  }

  module(id: number): ModuleRecord | undefined {
    return this.get("modules", id);
  }

  level(id: number): LevelRecord | undefined {
    return this.get("levels", id);
  }

  field(id: number): FieldRecord | undefined {
    return this.get("fields", id);
  }

  levelsOf(moduleId: number): LevelRecord[] {
    return this.index().levelsByModule.get(moduleId) ?? [];
  }

  fieldsOf(levelId: number): FieldRecord[] {
    return this.index().fieldsByLevel.get(levelId) ?? [];
  }

  layoutOf(levelId: number): LayoutRecord | undefined {
    return this.index().layoutByLevel.get(levelId);
  }

  eventRulesOf(levelId: number): EventRuleRecord[] {
    return this.index().rulesByLevel.get(levelId) ?? [];
  }

  eventActionsOf(ruleId: number): EventActionRecord[] {
    return this.index().actionsByRule.get(ruleId) ?? [];
  }

  questionnaireRulesOf(levelId: number): QuestionnaireRuleRecord[] {
    return this.index().questionnaireRulesByLevel.get(levelId) ?? [];
  }

  /** The questionnaire whose target cross-reference is this field, if any. */
  questionnaireTargetedBy(fieldId: number): ModuleRecord | undefined {
    return this.all("modules").find((m) => m.Type === "Questionnaire" && m.TargetFieldId === fieldId);
  }

  private guidIndex(): Map<string, number> {
    if (this.guids) return this.guids;
    const guids = new Map<string, number>();
    for (const kind of KINDS) {
      for (const record of Object.values(this.data[kind])) guids.set(guidKey(kind, record.Guid), record.Id);
    }
    this.guids = guids;
    return guids;
  }

  private index(): Indexes {
    if (this.indexes) return this.indexes;
    const layoutByLevel = new Map<number, LayoutRecord>();
    for (const layout of this.all("layouts")) layoutByLevel.set(layout.LevelId, layout);
    this.indexes = {
      levelsByModule: groupBy(this.all("levels"), (l) => l.ModuleId),
      fieldsByLevel: groupBy(this.all("fields"), (f) => f.LevelId),
      layoutByLevel,
      rulesByLevel: groupBy(this.all("eventRules"), (r) => r.LevelId),
      actionsByRule: groupBy(this.all("eventActions"), (a) => a.EventRuleId),
      questionnaireRulesByLevel: groupBy(this.all("questionnaireRules"), (r) => r.LevelId),
    };
    return this.indexes;
  }
}

const views = new WeakMap<CatalogueData, Catalogue>();

/** The store's catalogue, created empty on first use (the `empty` seed has none). */
export function catalogueOf(store: Store): Catalogue {
  let data = store.data.catalogue as CatalogueData | undefined;
  if (!data) {
    data = emptyCatalogue();
    store.data.catalogue = data;
  }
  let view = views.get(data);
  if (!view) {
    view = new Catalogue(data);
    views.set(data, view);
  }
  return view;
}

/** Replaces the store's catalogue whole (an install that succeeded). */
export function replaceCatalogue(store: Store, data: CatalogueData): Catalogue {
  store.data.catalogue = data;
  store.changed();
  return catalogueOf(store);
}
