import type { ValidationMessage } from "../../wire/index.ts";
import { type Catalogue, KINDS, type Kind, type ModuleRecord } from "../catalogue/model.ts";
import { message } from "../failure.ts";
import type { PackagedModule, PackageObjectFile } from "./file-format.ts";

/*
 * What a real instance refuses in a package, checked before (GUIDs) and after (aliases, names) the
 * installer lays the package's structure onto a copy of the target:
 * - a GUID used twice in the package, by any two of its objects (`DuplicateGuid`);
 * - a GUID the target already uses for an object of another kind (`GuidConflict`; the installer
 *   checks the same kind under another parent itself);
 * - two fields of one level, or two levels of one module, with the same alias (`DuplicateAlias`);
 * - two modules of one type with the same name, such as a second application named like an
 *   existing one (`DuplicateName`).
 * Aliases and names compare case-insensitively, as the platform's SQL Server collation does.
 */

type GuidKind = Kind | "values";

const KIND_WORD: Record<GuidKind, string> = {
  modules: "module",
  levels: "level",
  fields: "field",
  layouts: "layout",
  eventRules: "event rule",
  eventActions: "event action",
  questionnaireRules: "questionnaire rule",
  reports: "report",
  values: "values-list value",
};

interface PackagedGuid {
  guid: string;
  kind: GuidKind;
  /** How a message names the object: `field "Risk ID" of level "Risk"`. */
  label: string;
}

function moduleGuids(module: PackagedModule, out: PackagedGuid[]): void {
  out.push({ guid: module.Guid, kind: "modules", label: `${module.Type} "${module.Name}"` });
  for (const level of module.Levels) {
    const inLevel = `of level "${level.Name}"`;
    out.push({ guid: level.Guid, kind: "levels", label: `level "${level.Name}" of "${module.Name}"` });
    for (const field of level.Fields) {
      out.push({ guid: field.Guid, kind: "fields", label: `field "${field.Name}" ${inLevel}` });
      for (const value of field.Values) {
        out.push({
          guid: value.Guid,
          kind: "values",
          label: `value "${value.Name}" of field "${field.Name}"`,
        });
      }
    }
    if (level.Layout) out.push({ guid: level.Layout.Guid, kind: "layouts", label: `the layout ${inLevel}` });
    for (const rule of level.EventRules) {
      out.push({ guid: rule.Guid, kind: "eventRules", label: `event rule "${rule.Name}" ${inLevel}` });
      for (const action of rule.Actions) {
        out.push({
          guid: action.Guid,
          kind: "eventActions",
          label: `event action "${action.Name}" ${inLevel}`,
        });
      }
    }
    for (const rule of level.QuestionnaireRules) {
      out.push({
        guid: rule.Guid,
        kind: "questionnaireRules",
        label: `questionnaire rule "${rule.Name}" ${inLevel}`,
      });
    }
  }
}

/** Every GUID that names an object of the package (not the GUIDs its references point at). */
export function packagedGuids(objects: readonly PackageObjectFile[]): PackagedGuid[] {
  const out: PackagedGuid[] = [];
  for (const object of objects) {
    if (object.Type === "GlobalReport") {
      out.push({ guid: object.Report.Guid, kind: "reports", label: `report "${object.Report.Name}"` });
    } else moduleGuids(object.Module, out);
  }
  return out;
}

/** GUIDs used twice within the package, and GUIDs the target uses for another kind of object. */
export function guidConflicts(objects: readonly PackageObjectFile[], target: Catalogue): ValidationMessage[] {
  const messages: ValidationMessage[] = [];
  const seen = new Map<string, PackagedGuid>();
  for (const entry of packagedGuids(objects)) {
    const key = entry.guid.toLowerCase();
    const first = seen.get(key);
    if (first) {
      messages.push(
        message(
          "DuplicateGuid",
          `GUID ${entry.guid} is used twice in the package: by ${first.label} and by ${entry.label}.`,
          { erroredValue: entry.guid },
        ),
      );
      continue;
    }
    seen.set(key, entry);
    const other = KINDS.find((kind) => kind !== entry.kind && target.byGuid(kind, entry.guid));
    if (other) {
      messages.push(
        message(
          "GuidConflict",
          `GUID ${entry.guid} of ${entry.label} is a ${KIND_WORD[other]} on this instance.`,
          { erroredValue: entry.guid },
        ),
      );
    }
  }
  return messages;
}

const TYPE_WORDS: Record<ModuleRecord["Type"], string> = {
  Application: "applications",
  SubForm: "sub-forms",
  Questionnaire: "questionnaires",
};

interface Named {
  Guid: string;
  Name: string;
  Alias: string;
}

/** Pairs of records with the same value of `key`, at least one of them written by the package. */
function clashes<T extends Named>(
  records: readonly T[],
  key: (r: T) => string,
  touched: Set<string>,
): [T, T][] {
  const first = new Map<string, T>();
  const pairs: [T, T][] = [];
  for (const record of records) {
    const value = key(record).trim().toLowerCase();
    if (value === "") continue;
    const earlier = first.get(value);
    if (!earlier) first.set(value, record);
    else if (touched.has(record.Guid.toLowerCase()) || touched.has(earlier.Guid.toLowerCase())) {
      pairs.push([earlier, record]);
    }
  }
  return pairs;
}

/**
 * Alias and name clashes in the catalogue as the install would leave it, in the modules the
 * package writes. `touched` holds the lower-case GUIDs of the package's objects.
 */
export function nameConflicts(
  catalogue: Catalogue,
  modules: readonly ModuleRecord[],
  touched: Set<string>,
): ValidationMessage[] {
  const messages = new Map<string, ValidationMessage>();
  const add = (key: string, description: string, erroredValue: string) =>
    messages.set(description, message(key, description, { erroredValue }));
  const both = (a: Named, b: Named) => `"${a.Name}" (${a.Guid}) and "${b.Name}" (${b.Guid})`;
  for (const module of modules) {
    const sameType = catalogue.all("modules").filter((m) => m.Type === module.Type);
    for (const [a, b] of clashes(sameType, (m) => m.Name, touched)) {
      if (a.Guid !== module.Guid && b.Guid !== module.Guid) continue;
      add(
        "DuplicateName",
        `Two ${TYPE_WORDS[module.Type]} would be named "${a.Name}": ${both(a, b)}.`,
        a.Name,
      );
    }
    const levels = catalogue.levelsOf(module.Id);
    for (const [a, b] of clashes(levels, (l) => l.Alias, touched)) {
      add(
        "DuplicateAlias",
        `${module.Name} would have two levels with the alias "${a.Alias}": ${both(a, b)}.`,
        a.Alias,
      );
    }
    for (const level of levels) {
      for (const [a, b] of clashes(catalogue.fieldsOf(level.Id), (f) => f.Alias, touched)) {
        add(
          "DuplicateAlias",
          `Level "${level.Name}" of ${module.Name} would have two fields with the alias "${a.Alias}": ${both(a, b)}.`,
          a.Alias,
        );
      }
    }
  }
  return [...messages.values()];
}
