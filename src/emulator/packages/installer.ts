import { configure } from "safe-stable-stringify";
import {
  fieldReferenceKind,
  InstallMethod,
  InstallOption,
  TranslationOption,
  type ValidationMessage,
} from "../../wire/index.ts";
import {
  Catalogue,
  type CatalogueData,
  type FieldRecord,
  type Kind,
  type LevelRecord,
  type ModuleRecord,
  type RecordByKind,
  updateInformation,
} from "../catalogue/model.ts";
import { message } from "../failure.ts";
import { guidConflicts, nameConflicts, packagedGuids } from "./conflicts.ts";
import type { PackagedLevel, PackagedModule, PackagedReport, PackageObjectFile } from "./file-format.ts";
import type { InstallChoiceRecord } from "./model.ts";

/*
 * Applies a package's object trees to a copy of the catalogue. The caller swaps the copy in only
 * when there are no messages, so a failed install leaves the target as it was.
 *
 * - Objects match by GUID; new objects get ids from the target's counters, existing ones keep theirs.
 * - InstallMethod 1 leaves an existing object (module or report) untouched; 2 updates it.
 * - InstallOption 1 keeps an existing level's layout as it is (fields the package adds are not
 *   placed on it); 2 replaces it with the package's. A new level always gets the package's layout.
 * - TranslationOption 1 sets the package's translations on the module, its levels and fields; 0
 *   leaves existing translations alone and gives new objects none.
 * - InactivateUnusedFields: fields of an updated module that the package does not hold are
 *   deactivated and renamed with PrefixInactivatedFields (never twice).
 * - Objects of the target that the package does not mention (levels, rules, actions) stay.
 * - A reference must resolve to an object of the package or of the target, else nothing changes.
 * - What a real instance refuses (conflicts.ts): a GUID twice in the package or of another kind on
 *   the target, two fields of a level (or levels of a module) with one alias, two modules of a type
 *   with one name. Nothing of the package is installed then.
 * - UpdateInformation moves only for records whose content changed, so a reinstall is a no-op.
 */

export interface InstallInput {
  objects: PackageObjectFile[];
  /** By lower-case GUID; objects without a choice get DEFAULT_CHOICE. */
  choices: Map<string, InstallChoiceRecord>;
  inactivateUnusedFields: boolean;
  prefix: string | null;
  now: string;
  userId: number;
}

export interface InstallResult {
  data: CatalogueData;
  messages: ValidationMessage[];
  /** True when at least one record was created or changed. */
  changed: boolean;
}

export const DEFAULT_CHOICE = {
  TranslationOption: TranslationOption.None,
  InstallMethod: InstallMethod.CreateNewAndUpdate,
  InstallOption: InstallOption.OverrideLayout,
} as const;

type Choice = Pick<InstallChoiceRecord, "TranslationOption" | "InstallMethod" | "InstallOption">;

interface PendingModule {
  pkg: PackagedModule;
  module: ModuleRecord;
  choice: Choice;
  created: boolean;
}

/** JSON with sorted keys, to compare records whatever order their keys were written in. */
const canonical = configure({ circularValue: TypeError, bigint: false });

function contentOf(record: { UpdateInformation: unknown }): string {
  const { UpdateInformation: _info, ...content } = record;
  return canonical(content);
}

class Installer {
  private readonly current: CatalogueData;
  private readonly catalogue: Catalogue;
  private readonly input: InstallInput;
  readonly messages: ValidationMessage[] = [];
  private readonly touched = new Map<string, { kind: Kind; id: number }>();
  private readonly pending: PendingModule[] = [];

  constructor(current: CatalogueData, input: InstallInput) {
    this.current = current;
    this.catalogue = new Catalogue(structuredClone(current));
    this.input = input;
  }

  get data(): CatalogueData {
    return this.catalogue.data;
  }

  run(): boolean {
    this.messages.push(...guidConflicts(this.input.objects, this.catalogue));
    if (this.messages.length > 0) return false;
    for (const object of this.input.objects) {
      if (object.Type !== "GlobalReport") this.moduleStructure(object.Module, object.Type);
    }
    if (this.messages.length > 0) return false;
    const touched = new Set(packagedGuids(this.input.objects).map((g) => g.guid.toLowerCase()));
    const modules = this.pending.map((p) => p.module);
    this.messages.push(...nameConflicts(this.catalogue, modules, touched));
    if (this.messages.length > 0) return false;
    for (const pending of this.pending) this.moduleReferences(pending);
    for (const object of this.input.objects) {
      if (object.Type === "GlobalReport") this.report(object.Report);
    }
    if (this.messages.length > 0) return false;
    if (this.input.inactivateUnusedFields) {
      for (const pending of this.pending) if (!pending.created) this.inactivateUnused(pending);
    }
    return this.stamp();
  }

  // ---- helpers

  private fail(key: string, description: string, erroredValue?: unknown): void {
    this.messages.push(message(key, description, { erroredValue }));
  }

  private choiceFor(guid: string): Choice {
    return this.input.choices.get(guid.toLowerCase()) ?? DEFAULT_CHOICE;
  }

  private save<K extends Kind>(kind: K, record: RecordByKind[K]): RecordByKind[K] {
    this.touched.set(`${kind}:${record.Id}`, { kind, id: record.Id });
    return this.catalogue.put(kind, record);
  }

  private idFor<K extends Kind>(kind: K, existing: RecordByKind[K] | undefined): number {
    return existing?.Id ?? this.catalogue.nextId(kind);
  }

  private resolve<K extends "levels" | "fields" | "modules">(
    kind: K,
    guid: string,
    context: string,
  ): RecordByKind[K] | undefined {
    const record = this.catalogue.byGuid(kind, guid);
    if (!record) {
      const what = { levels: "level", fields: "field", modules: "module" }[kind];
      this.fail(
        "MissingReference",
        `${context} references ${what} ${guid}, which is neither in the package nor on this instance.`,
        guid,
      );
    }
    return record;
  }

  private resolveIds(kind: "levels" | "fields", guids: string[], context: string): number[] {
    return guids.flatMap((guid) => {
      const record = this.resolve(kind, guid, context);
      return record ? [record.Id] : [];
    });
  }

  // ---- phase 1: modules, levels, fields (what other objects refer to)

  private moduleStructure(pkg: PackagedModule, entryType: "Application" | "SubForm"): void {
    const fits = entryType === "SubForm" ? pkg.Type === "SubForm" : pkg.Type !== "SubForm";
    if (!fits) {
      this.fail(
        "ObjectTypeMismatch",
        `${pkg.Name} (${pkg.Guid}) is a ${pkg.Type}, not a ${entryType}.`,
        pkg.Guid,
      );
      return;
    }
    const existing = this.catalogue.byGuid("modules", pkg.Guid);
    if (existing && existing.Type !== pkg.Type) {
      this.fail(
        "GuidConflict",
        `${pkg.Guid} is a ${existing.Type} on this instance, not a ${pkg.Type}.`,
        pkg.Guid,
      );
      return;
    }
    const choice = this.choiceFor(pkg.Guid);
    if (existing && choice.InstallMethod === InstallMethod.CreateNewOnly) return;
    const translate = choice.TranslationOption === TranslationOption.Install;
    const module = this.save("modules", {
      Id: this.idFor("modules", existing),
      Guid: pkg.Guid,
      Alias: pkg.Alias,
      Name: pkg.Name,
      Description: pkg.Description,
      Type: pkg.Type,
      KeepLicensed: pkg.KeepLicensed,
      IsDeprecated: pkg.IsDeprecated,
      TargetFieldId: existing?.TargetFieldId ?? null,
      Translations: translate ? pkg.Translations : (existing?.Translations ?? []),
      UpdateInformation: existing?.UpdateInformation ?? null,
    });
    for (const level of pkg.Levels) this.levelStructure(level, module, translate);
    this.pending.push({ pkg, module, choice, created: !existing });
  }

  private levelStructure(pkg: PackagedLevel, module: ModuleRecord, translate: boolean): void {
    const existing = this.catalogue.byGuid("levels", pkg.Guid);
    if (existing && existing.ModuleId !== module.Id) {
      this.fail("GuidConflict", `Level ${pkg.Guid} belongs to another module on this instance.`, pkg.Guid);
      return;
    }
    const level: LevelRecord = this.save("levels", {
      Id: this.idFor("levels", existing),
      Guid: pkg.Guid,
      ModuleId: module.Id,
      Name: pkg.Name,
      Description: pkg.Description,
      Alias: pkg.Alias,
      AllowFilter: pkg.AllowFilter,
      ASOStatus: pkg.ASOStatus,
      IsDeleted: false,
      Translations: translate ? pkg.Translations : (existing?.Translations ?? []),
      UpdateInformation: existing?.UpdateInformation ?? null,
    });
    for (const field of pkg.Fields) this.fieldStructure(field, level, translate);
  }

  private fieldStructure(pkg: PackagedLevel["Fields"][number], level: LevelRecord, translate: boolean): void {
    const existing = this.catalogue.byGuid("fields", pkg.Guid);
    if (existing && existing.LevelId !== level.Id) {
      this.fail("GuidConflict", `Field ${pkg.Guid} belongs to another level on this instance.`, pkg.Guid);
      return;
    }
    if (existing && existing.Type !== pkg.Type) {
      this.fail(
        "FieldTypeChanged",
        `Field "${pkg.Name}" is of type ${existing.Type} on this instance and ${pkg.Type} in the package; a field's type cannot change.`,
        pkg.Guid,
      );
      return;
    }
    const oldValues = new Map((existing?.ValuesListValues ?? []).map((v) => [v.Guid.toLowerCase(), v.Id]));
    this.save("fields", {
      Id: this.idFor("fields", existing),
      Guid: pkg.Guid,
      Alias: pkg.Alias,
      Name: pkg.Name,
      LevelId: level.Id,
      Type: pkg.Type,
      IsActive: pkg.IsActive,
      IsRequired: pkg.IsRequired,
      Description: pkg.Description,
      ValuesListValues: pkg.Values.map((v) => ({
        Id: oldValues.get(v.Guid.toLowerCase()) ?? this.catalogue.nextId("values"),
        Guid: v.Guid,
        Name: v.Name,
      })),
      ReferencedLevelIds: existing?.ReferencedLevelIds ?? [],
      SubformModuleId: existing?.SubformModuleId ?? null,
      Translations: translate ? pkg.Translations : (existing?.Translations ?? []),
      UpdateInformation: existing?.UpdateInformation ?? null,
    });
  }

  // ---- phase 2: everything that refers to something

  private moduleReferences({ pkg, module, choice }: PendingModule): void {
    for (const pkgLevel of pkg.Levels) {
      const level = this.catalogue.byGuid("levels", pkgLevel.Guid);
      if (!level) continue;
      for (const field of pkgLevel.Fields) this.fieldReferences(field, module);
      this.layout(pkgLevel, level, choice);
      this.eventRules(pkgLevel, level);
      this.questionnaireRules(pkgLevel, level);
    }
    this.questionnaireTarget(pkg, module);
  }

  private fieldReferences(pkg: PackagedLevel["Fields"][number], module: ModuleRecord): void {
    const field = this.catalogue.byGuid("fields", pkg.Guid);
    if (!field) return;
    const context = `Field "${pkg.Name}" of ${module.Name}`;
    const isReference = fieldReferenceKind(pkg.Type) === "levels";
    if (isReference !== pkg.ReferencedLevelGuids.length > 0) {
      this.fail(
        "InvalidFieldDefinition",
        `${context}: cross-reference and related-records fields, and only they, name the levels they point at.`,
        pkg.Guid,
      );
      return;
    }
    if ((fieldReferenceKind(pkg.Type) === "subform") !== (pkg.SubformGuid !== null)) {
      this.fail(
        "InvalidFieldDefinition",
        `${context}: sub-form fields, and only they, name a sub-form.`,
        pkg.Guid,
      );
      return;
    }
    let subform: number | null = null;
    if (pkg.SubformGuid !== null) {
      const target = this.resolve("modules", pkg.SubformGuid, context);
      if (target && target.Type !== "SubForm") {
        this.fail(
          "InvalidFieldDefinition",
          `${context} names ${target.Name}, which is not a sub-form.`,
          pkg.SubformGuid,
        );
      }
      subform = target?.Id ?? null;
    }
    this.save("fields", {
      ...field,
      ReferencedLevelIds: this.resolveIds("levels", pkg.ReferencedLevelGuids, context),
      SubformModuleId: subform,
    });
  }

  /** Fields a level's layout, rules and actions name must be fields of that level. */
  private ownFieldIds(guids: string[], level: LevelRecord, context: string): number[] {
    return guids.flatMap((guid) => {
      const field = this.resolve("fields", guid, context);
      if (!field) return [];
      if (field.LevelId !== level.Id) {
        this.fail(
          "MissingReference",
          `${context} names field ${guid}, which is not a field of ${level.Name}.`,
          guid,
        );
        return [];
      }
      return [field.Id];
    });
  }

  private layout(pkg: PackagedLevel, level: LevelRecord, choice: Choice): void {
    if (!pkg.Layout) return;
    const existing = this.catalogue.layoutOf(level.Id);
    if (existing && choice.InstallOption === InstallOption.KeepTargetLayout) return;
    const sameGuid = this.catalogue.byGuid("layouts", pkg.Layout.Guid);
    if (sameGuid && sameGuid.LevelId !== level.Id) {
      this.fail("GuidConflict", `Layout ${pkg.Layout.Guid} belongs to another level on this instance.`);
      return;
    }
    const context = `The layout of ${level.Name}`;
    this.save("layouts", {
      Id: existing?.Id ?? this.catalogue.nextId("layouts"),
      Guid: pkg.Layout.Guid,
      LevelId: level.Id,
      Name: pkg.Layout.Name,
      Sections: pkg.Layout.Sections.map((s) => ({
        Name: s.Name,
        FieldIds: this.ownFieldIds(s.FieldGuids, level, context),
      })),
      UpdateInformation: existing?.UpdateInformation ?? null,
    });
  }

  private eventRules(pkg: PackagedLevel, level: LevelRecord): void {
    for (const pkgRule of pkg.EventRules) {
      const existing = this.catalogue.byGuid("eventRules", pkgRule.Guid);
      if (existing && existing.LevelId !== level.Id) {
        this.fail("GuidConflict", `Event rule ${pkgRule.Guid} belongs to another level on this instance.`);
        continue;
      }
      const context = `Event rule "${pkgRule.Name}"`;
      const rule = this.save("eventRules", {
        Id: this.idFor("eventRules", existing),
        Guid: pkgRule.Guid,
        Alias: pkgRule.Alias,
        Name: pkgRule.Name,
        LevelId: level.Id,
        Condition: pkgRule.Condition,
        ConditionFieldIds: this.ownFieldIds(pkgRule.ConditionFieldGuids, level, context),
        IsActive: pkgRule.IsActive,
        UpdateInformation: existing?.UpdateInformation ?? null,
      });
      for (const action of pkgRule.Actions) {
        const old = this.catalogue.byGuid("eventActions", action.Guid);
        if (old && old.EventRuleId !== rule.Id) {
          this.fail("GuidConflict", `Event action ${action.Guid} belongs to another rule on this instance.`);
          continue;
        }
        this.save("eventActions", {
          Id: this.idFor("eventActions", old),
          Guid: action.Guid,
          Alias: action.Alias,
          Name: action.Name,
          EventRuleId: rule.Id,
          ActionType: action.ActionType,
          TargetFieldIds: this.ownFieldIds(action.TargetFieldGuids, level, `Event action "${action.Name}"`),
          UpdateInformation: old?.UpdateInformation ?? null,
        });
      }
    }
  }

  private questionnaireRules(pkg: PackagedLevel, level: LevelRecord): void {
    for (const pkgRule of pkg.QuestionnaireRules) {
      const existing = this.catalogue.byGuid("questionnaireRules", pkgRule.Guid);
      if (existing && existing.LevelId !== level.Id) {
        this.fail(
          "GuidConflict",
          `Questionnaire rule ${pkgRule.Guid} belongs to another level on this instance.`,
        );
        continue;
      }
      this.save("questionnaireRules", {
        Id: this.idFor("questionnaireRules", existing),
        Guid: pkgRule.Guid,
        Alias: pkgRule.Alias,
        Name: pkgRule.Name,
        LevelId: level.Id,
        Condition: pkgRule.Condition,
        ConditionFieldIds: this.ownFieldIds(
          pkgRule.ConditionFieldGuids,
          level,
          `Questionnaire rule "${pkgRule.Name}"`,
        ),
        Outcome: pkgRule.Outcome,
        UpdateInformation: existing?.UpdateInformation ?? null,
      });
    }
  }

  private questionnaireTarget(pkg: PackagedModule, module: ModuleRecord): void {
    if (pkg.TargetFieldGuid === null) {
      this.save("modules", { ...module, TargetFieldId: null });
      return;
    }
    const field = this.resolve("fields", pkg.TargetFieldGuid, `Questionnaire ${pkg.Name}`);
    if (!field) return;
    const own = this.catalogue.level(field.LevelId)?.ModuleId === module.Id;
    if (!own || field.Type !== 9 || field.ReferencedLevelIds.length !== 1) {
      this.fail(
        "InvalidFieldDefinition",
        `The target of questionnaire ${pkg.Name} must be one of its own cross-reference fields, pointing at one level.`,
        pkg.TargetFieldGuid,
      );
      return;
    }
    this.save("modules", { ...module, TargetFieldId: field.Id });
  }

  private report(pkg: PackagedReport): void {
    const existing = this.catalogue.byGuid("reports", pkg.Guid);
    if (existing && this.choiceFor(pkg.Guid).InstallMethod === InstallMethod.CreateNewOnly) return;
    const context = `Report "${pkg.Name}"`;
    const level = this.resolve("levels", pkg.LevelGuid, context);
    if (!level) return;
    this.save("reports", {
      Id: this.idFor("reports", existing),
      Guid: pkg.Guid,
      Alias: pkg.Alias,
      Name: pkg.Name,
      Description: pkg.Description,
      LevelId: level.Id,
      FieldIds: this.ownFieldIds(pkg.FieldGuids, level, context),
      UpdateInformation: existing?.UpdateInformation ?? null,
    });
  }

  // ---- phase 3: fields the package no longer has

  private inactivateUnused({ pkg, module }: PendingModule): void {
    const kept = new Set(pkg.Levels.flatMap((l) => l.Fields.map((f) => f.Guid.toLowerCase())));
    const prefix = this.input.prefix ?? "";
    for (const level of this.catalogue.levelsOf(module.Id)) {
      for (const field of this.catalogue.fieldsOf(level.Id)) {
        if (kept.has(field.Guid.toLowerCase())) continue;
        const name = prefix && !field.Name.startsWith(prefix) ? `${prefix}${field.Name}` : field.Name;
        this.save("fields", { ...field, IsActive: false, Name: name } as FieldRecord);
      }
    }
  }

  // ---- phase 4: UpdateInformation of what changed

  private stamp(): boolean {
    const { now, userId } = this.input;
    let changed = false;
    for (const { kind, id } of this.touched.values()) {
      const record = this.catalogue.get(kind, id);
      if (!record) continue;
      const before = (this.current[kind] as Record<string, RecordByKind[Kind]>)[String(id)];
      if (!before) {
        record.UpdateInformation = updateInformation(now, userId);
        changed = true;
      } else if (contentOf(before) !== contentOf(record)) {
        const created = before.UpdateInformation ?? updateInformation(now, userId);
        record.UpdateInformation = { ...created, UpdateDate: now, UpdateLogin: userId };
        changed = true;
      } else {
        record.UpdateInformation = before.UpdateInformation;
      }
    }
    return changed;
  }
}

/** Plans an install on a copy of `current`; the caller swaps `data` in when `messages` is empty. */
export function planInstall(current: CatalogueData, input: InstallInput): InstallResult {
  const installer = new Installer(current, input);
  const changed = installer.run();
  return {
    data: installer.data,
    messages: installer.messages,
    changed: installer.messages.length === 0 && changed,
  };
}
