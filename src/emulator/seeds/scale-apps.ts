import { EventActionType as Act, FieldType as T } from "../../wire/index.ts";
import { buildCatalogue, type LevelSpec, type ModuleSpec } from "../catalogue/build.ts";
import { catalogueOf } from "../catalogue/model.ts";
import type { Store } from "../store.ts";

/*
 * `scale:apps=M`: M applications for benchmarks, deterministic (same GUIDs on every instance).
 * Every third application has a second level; each level has a handful of fields, a layout, and a
 * rule with an action; from the second application on, a cross-reference points at the previous one.
 */

function level(app: string, key: string, name: string, previous: string | null): LevelSpec {
  return {
    key,
    name,
    fields: [
      { key: "name", name: `${name} Name`, type: T.Text, required: true },
      { key: "status", name: "Status", type: T.ValuesList, values: ["Open", "In Progress", "Closed"] },
      { key: "owner", name: "Owner", type: T.UsersGroups },
      { key: "due", name: "Due Date", type: T.Date },
      { key: "score", name: "Score", type: T.Numeric },
      ...(previous
        ? [{ key: "previous", name: "Previous", type: T.CrossReference, references: [previous] }]
        : []),
    ],
    layout: {
      name: `${name} Layout`,
      sections: [
        { name: "General", fields: ["name", "status", "owner"] },
        { name: "Tracking", fields: ["due", "score", ...(previous ? ["previous"] : [])] },
      ],
    },
    rules: [
      {
        key: "closed",
        name: `${app} closed`,
        condition: "Status = Closed",
        fields: ["status"],
        actions: [{ key: "notify", name: "Notify owner", type: Act.SendNotification, targets: ["owner"] }],
      },
    ],
  };
}

export function scaleModules(apps: number): ModuleSpec[] {
  const modules: ModuleSpec[] = [];
  for (let i = 1; i <= apps; i++) {
    const key = `app-${String(i).padStart(4, "0")}`;
    const name = `Scale Application ${String(i).padStart(4, "0")}`;
    const previous = i > 1 ? `app-${String(i - 1).padStart(4, "0")}/main` : null;
    const levels = [level(name, "main", `Item ${i}`, previous)];
    if (i % 3 === 0) levels.push(level(name, "detail", `Detail ${i}`, `${key}/main`));
    modules.push({ key, type: "Application", name, description: null, levels });
  }
  return modules;
}

export function seedScaleApps(store: Store, apps: number): void {
  if (apps <= 0) return;
  buildCatalogue(catalogueOf(store), {
    namespace: "egp-scale",
    date: "2026-01-01T00:00:00.000Z",
    modules: scaleModules(apps),
    reports: [],
  });
}
