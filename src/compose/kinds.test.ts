import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BUILT_IN_OPS, BUILT_IN_OUTLIVE_PLAN } from "../apply/index.ts";
import { BUILT_IN_EXPORTERS } from "../export/index.ts";
import { BUILT_IN_DOCUMENT_KINDS, manifestDocumentSchema } from "../manifest/index.ts";
import { defineKind, scoping, sourceOf } from "../manifest/kinds/kind.ts";
import {
  BUILT_IN_PLANNERS,
  BUILT_IN_STEPS,
  type KindPlanner,
  PLAN_FORMAT_VERSION,
  type Plan,
  readPlanFile,
} from "../plan/index.ts";
import { BUILT_IN_LIVE_KINDS } from "../state/index.ts";
import { BUILT_IN_KINDS, builtInKinds, createKinds, type Kind } from "./kinds.ts";

/* A kinds value is made from a list and shares nothing with another: a plugin in one is unknown to the other. */

const widgetSteps = {
  kind: "Widget",
  ops: { "widget.create": z.object({ name: z.string() }) },
  actions: { create: ["widget.create"] },
} as const;

const widgetPlanner: KindPlanner = {
  kind: "Widget",
  order: 30,
  unverifiable: [],
  plan: () => ({ changes: [], steps: [], unmanaged: [] }),
};

/** A prunable kind that exists only in this test. */
const widget: Kind = {
  name: "Widget",
  document: defineKind({
    kind: "Widget",
    plural: "widgets",
    schema: z.strictObject({ kind: z.literal("Widget"), ...scoping, name: z.string() }),
    rules: [],
    key: { field: "name", of: (desired: { name: string }) => desired.name.toLowerCase() },
    prune: { values: ["ignore", "delete"], description: "Widgets no manifest names." },
    normalize: (doc, _environment, report) => ({
      kind: "Widget",
      name: doc.name,
      source: sourceOf(report, "name"),
    }),
  }),
  steps: widgetSteps,
  planner: widgetPlanner,
  ops: { "widget.create": async () => ({}) },
};

const planOf = (kind: string): Plan => ({
  formatVersion: PLAN_FORMAT_VERSION,
  id: "0123456789abcdef",
  environment: "dev",
  createdAt: "2026-12-05T00:00:00.000Z",
  digests: { manifests: "m", live: "l", liveParts: {} },
  options: { allowDelete: false, enforceRoles: false },
  changes: [
    { id: `${kind}/w1`, kind, key: "w1", action: "create", fields: [], notes: [], destructive: false },
  ],
  steps: [
    {
      id: `${kind}/w1#create`,
      change: `${kind}/w1`,
      op: "widget.create",
      environment: "dev",
      dependsOn: [],
      input: { name: "w1" },
    },
  ],
  unmanaged: [],
  excluded: [],
  summary: { add: 1, change: 0, destroy: 0, promote: 0, drift: 0 },
});

describe("createKinds", () => {
  it("gives two values made in one process nothing of each other's plugins", () => {
    const withWidget = createKinds([...builtInKinds, widget]);
    const without = createKinds(builtInKinds);
    expect(withWidget.named("Widget")).toBe(widget);
    expect(withWidget.steps.kinds).toContain("Widget");
    expect(withWidget.documents.named("Widget")?.plural).toBe("widgets");
    expect(withWidget.ops["widget.create"]).toBe(widget.ops["widget.create"]);
    for (const kinds of [without, BUILT_IN_KINDS]) {
      expect(kinds.named("Widget")).toBeUndefined();
      expect(kinds.documents.named("Widget")).toBeUndefined();
      expect(kinds.steps.kinds).not.toContain("Widget");
      expect(kinds.steps.inputSchema("widget.create")).toBeUndefined();
      expect(kinds.planners.map((planner) => planner.kind)).not.toContain("Widget");
      expect(kinds.ops["widget.create"]).toBeUndefined();
    }
  });

  it("makes a plugin kind prunable as a built-in is: the PrunePolicy of its value speaks of it", () => {
    const withWidget = createKinds([...builtInKinds, widget]);
    const policy = { kind: "PrunePolicy", widgets: "delete", exclude: { widgets: ["keep*"] } };
    const schemaOf = (kinds: typeof withWidget) => kinds.documents.named("PrunePolicy")?.schema;
    expect(schemaOf(withWidget)?.safeParse(policy).success).toBe(true);
    expect(schemaOf(BUILT_IN_KINDS)?.safeParse(policy).success).toBe(false);
    expect(withWidget.documents.noPruning).toMatchObject({ widgets: "ignore", exclude: { widgets: [] } });
    expect(withWidget.documents.prunable.map((kind) => kind.plural)).toEqual([
      "securityParameters",
      "users",
      "widgets",
    ]);
  });

  it("keeps documents of a plugin kind, and a PrunePolicy that depends on one, out of the manifest cache", () => {
    const withWidget = createKinds([...builtInKinds, widget]);
    const prunePolicy = (kinds: typeof withWidget) => kinds.documents.named("PrunePolicy");
    expect(withWidget.documents.builtInOnly).toBe(false);
    expect(withWidget.documents.cacheable(widget.document)).toBe(false);
    expect(withWidget.documents.cacheable(prunePolicy(withWidget)!)).toBe(false);
    expect(withWidget.documents.cacheable(withWidget.documents.named("User")!)).toBe(true);
    const own = createKinds(builtInKinds);
    expect(own.documents.builtInOnly).toBe(true);
    expect(own.documents.cacheable(prunePolicy(own)!)).toBe(true);
  });

  it("reads a saved plan of a plugin kind with that kind's value only; without it, EGP_PLAN_UNKNOWN_KIND", () => {
    const text = JSON.stringify(planOf("Widget"));
    const withWidget = createKinds([...builtInKinds, widget]);
    expect(readPlanFile(text, "widget.plan.json", withWidget.steps).steps[0]?.op).toBe("widget.create");
    expect(() => readPlanFile(text, "widget.plan.json", BUILT_IN_KINDS.steps)).toThrow(
      expect.objectContaining({ code: "EGP_PLAN_UNKNOWN_KIND" }),
    );
    expect(() => readPlanFile(text, "widget.plan.json")).toThrow(
      'widget.plan.json: not a usable plan file (it names the kind "Widget", which this process does not have (its kinds: SecurityParameter, User, Package, Record); apply it with the kinds it was planned with)',
    );
    // A known kind with an op it lacks is a damaged file, not a missing kind.
    const damaged = JSON.stringify(planOf("User"));
    expect(() => readPlanFile(damaged, "user.plan.json")).toThrow(
      expect.objectContaining({ code: "EGP_PLAN_FILE_INVALID" }),
    );
  });

  it("derives from egp's own kinds exactly what each stage uses when it is given no kinds", () => {
    const kinds = BUILT_IN_KINDS;
    expect(kinds.documents.listed).toEqual(BUILT_IN_DOCUMENT_KINDS.listed);
    expect(kinds.live).toEqual(BUILT_IN_LIVE_KINDS);
    expect(kinds.steps.kinds).toEqual(BUILT_IN_STEPS.kinds);
    expect(kinds.steps.ops).toEqual(BUILT_IN_STEPS.ops);
    expect([...kinds.steps.first]).toEqual([...BUILT_IN_STEPS.first]);
    expect(new Set(kinds.planners)).toEqual(new Set(BUILT_IN_PLANNERS));
    expect(Object.keys(kinds.ops).sort()).toEqual(Object.keys(BUILT_IN_OPS).sort());
    expect(kinds.outlivePlan).toEqual(BUILT_IN_OUTLIVE_PLAN);
    expect(kinds.exporters).toEqual(BUILT_IN_EXPORTERS);
    const kindsOf = (schema: ReturnType<typeof manifestDocumentSchema>) => schema.options.length;
    expect(kindsOf(manifestDocumentSchema(kinds.documents))).toBe(kindsOf(manifestDocumentSchema()));
  });

  it("refuses a list that does not hold together, naming the mistake", () => {
    expect(() => createKinds([...builtInKinds, widget, widget])).toThrow("kind Widget is listed twice");
    expect(() => createKinds([{ ...widget, planner: { ...widgetPlanner, kind: "Gadget" } }])).toThrow(
      "kind Widget: its planner is of kind Gadget",
    );
    expect(() => createKinds([{ ...widget, ops: {} }])).toThrow(
      "kind Widget: no handler for its op widget.create",
    );
    expect(() =>
      createKinds([{ ...widget, ops: { ...widget.ops, "widget.melt": async () => ({}) } }]),
    ).toThrow("kind Widget: a handler for widget.melt, which its steps do not declare");
    const gadget = { ...widget, name: "Gadget", planner: { ...widgetPlanner, kind: "Gadget" } };
    expect(() =>
      createKinds([
        widget,
        { ...gadget, steps: { ...widgetSteps, kind: "Gadget" }, document: widget.document },
      ]),
    ).toThrow("kind Gadget: its document is of kind Widget");
    const exporter = {
      kind: "Widget",
      file: "users.yaml",
      key: "name",
      noun: "widgets",
      export: () => ({ documents: [], warnings: [] }),
    };
    expect(() => createKinds([...builtInKinds, { ...widget, exporter }])).toThrow(
      "kinds User and Widget both export to users.yaml",
    );
  });
});
