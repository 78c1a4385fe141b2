import {
  type ApplyKinds,
  type OpRegistry,
  packageOps,
  packageOpsOutlivingPlan,
  recordOps,
  securityParameterOps,
  userOps,
} from "../apply/index.ts";
import { type KindExporter, securityParameterExporter, userExporter } from "../export/index.ts";
import {
  type DocumentKinds,
  documentKinds,
  packageKind,
  recordKind,
  securityParameterKind,
  userKind,
} from "../manifest/index.ts";
import type { Kind as DocumentKind } from "../manifest/kinds/kind.ts";
import {
  type KindPlanner,
  type KindSteps,
  type PlanKinds,
  packagePlanner,
  packageSteps,
  recordPlanner,
  recordSteps,
  type StepKinds,
  securityParameterPlanner,
  securityParameterSteps,
  stepKinds,
  userPlanner,
  userSteps,
} from "../plan/index.ts";
import {
  type AnyLiveKind,
  liveKinds,
  packageLive,
  recordLive,
  securityParameterLive,
  userLive,
} from "../state/index.ts";

/*
 * A kind is one value: its part in each stage, each defined in its stage's folder (the document in
 * src/manifest/kinds, the live read in src/state/kinds, the steps and planner in src/plan/kinds, the
 * ops in src/apply/ops, the exporter in src/export/kinds), bundled here. A kinds value is made from
 * a list of them by `createKinds` and passed to the orchestrators, which hand each stage the parts
 * it needs; no module keeps a list that grows (docs/architecture.md, "A kind from outside egp").
 */

/** One kind, by its part in each stage. Every part names the kind by `name`. */
export interface Kind {
  /** The kind's name in documents and plans (`User`). */
  readonly name: string;
  /** Its manifest documents (`defineKind`): schema, rules, normalization, prune choice. */
  // biome-ignore lint/suspicious/noExplicitAny: each kind's document type is checked where it is defined.
  readonly document: DocumentKind<any>;
  /** Its part of the live state (`liveKind`); absent: the kind reads what other kinds read. */
  readonly live?: AnyLiveKind;
  /** Its step ops, with their input schemas, and the ops each action runs. */
  readonly steps: KindSteps;
  readonly planner: KindPlanner;
  /** A handler for each of its step ops, and for nothing else. */
  readonly ops: OpRegistry;
  /** Its ops whose outputs a new plan of the same content reuses (a package made on the source). */
  readonly outlivePlan?: readonly string[];
  /** How `export` writes its live objects as documents; absent: not exported. */
  readonly exporter?: KindExporter;
}

/**
 * A set of kinds, and every list and lookup the stages take from it. Each stage is given the parts
 * it needs: the manifest loader `documents`, the live read `live`, the planner `planners` and
 * `steps`, the plan file `steps`, the executor `ops` and `outlivePlan`, export `exporters`.
 */
export interface Kinds extends PlanKinds, ApplyKinds {
  /** The kinds, as listed. */
  readonly list: readonly Kind[];
  readonly documents: DocumentKinds;
  readonly live: readonly AnyLiveKind[];
  readonly steps: StepKinds;
  readonly planners: readonly KindPlanner[];
  readonly ops: OpRegistry;
  readonly outlivePlan: ReadonlySet<string>;
  readonly exporters: readonly KindExporter[];
  named(name: string): Kind | undefined;
}

/** The parts of a kind that name another kind, or ops its steps do not declare. */
function partProblems(kind: Kind): string[] {
  const problems: string[] = [];
  const parts = [
    ["document", kind.document.kind],
    ["steps", kind.steps.kind],
    ["planner", kind.planner.kind],
    ...(kind.exporter ? [["exporter", kind.exporter.kind]] : []),
  ];
  for (const [part, name] of parts) if (name !== kind.name) problems.push(`its ${part} is of kind ${name}`);
  const declared = Object.keys(kind.steps.ops);
  const handled = Object.keys(kind.ops).filter((op) => kind.ops[op] !== undefined);
  for (const op of declared.filter((op) => !handled.includes(op)))
    problems.push(`no handler for its op ${op}`);
  for (const op of handled.filter((op) => !declared.includes(op)))
    problems.push(`a handler for ${op}, which its steps do not declare`);
  for (const op of (kind.outlivePlan ?? []).filter((op) => !declared.includes(op)))
    problems.push(`outlivePlan names ${op}, which its steps do not declare`);
  return problems;
}

function assertExportersUnique(exporters: readonly KindExporter[]): void {
  const files = new Map<string, string>();
  for (const exporter of exporters) {
    const other = files.get(exporter.file);
    if (other) throw new TypeError(`kinds ${other} and ${exporter.kind} both export to ${exporter.file}`);
    files.set(exporter.file, exporter.kind);
  }
}

/**
 * A kinds value from a list (`createKinds([...builtInKinds, widgetKind])`): the list is checked
 * (unique names, plurals, live parts, ops and export files; each kind's parts of that kind, and a
 * handler for each op it declares, none more) and every list and lookup is derived from it. A
 * mistake throws a TypeError naming it: it is the caller's code, not a user's input. Two values
 * share nothing: a plugin in one is unknown to the other.
 */
export function createKinds(list: readonly Kind[]): Kinds {
  const byName = new Map<string, Kind>();
  for (const kind of list) {
    if (byName.has(kind.name)) throw new TypeError(`kind ${kind.name} is listed twice`);
    const [problem] = partProblems(kind);
    if (problem) throw new TypeError(`kind ${kind.name}: ${problem}`);
    byName.set(kind.name, kind);
  }
  const exporters = list.flatMap((kind) => (kind.exporter ? [kind.exporter] : []));
  assertExportersUnique(exporters);
  return Object.freeze({
    list: Object.freeze([...list]),
    documents: documentKinds(list.map((kind) => kind.document)),
    live: liveKinds(list.flatMap((kind) => (kind.live ? [kind.live] : []))),
    steps: stepKinds(list.map((kind) => kind.steps)),
    planners: Object.freeze(list.map((kind) => kind.planner)),
    ops: Object.freeze(Object.fromEntries(list.flatMap((kind) => Object.entries(kind.ops)))),
    outlivePlan: new Set(list.flatMap((kind) => kind.outlivePlan ?? [])),
    exporters: Object.freeze(exporters),
    named: (name: string) => byName.get(name),
  });
}

/** egp's own kinds, each bundled from its stages' parts; a plugin list starts from these. */
export const builtInKinds: readonly Kind[] = Object.freeze([
  {
    name: "SecurityParameter",
    document: securityParameterKind,
    live: securityParameterLive,
    steps: securityParameterSteps,
    planner: securityParameterPlanner,
    ops: securityParameterOps,
    exporter: securityParameterExporter,
  },
  {
    name: "User",
    document: userKind,
    live: userLive,
    steps: userSteps,
    planner: userPlanner,
    ops: userOps,
    exporter: userExporter,
  },
  {
    name: "Package",
    document: packageKind,
    live: packageLive,
    steps: packageSteps,
    planner: packagePlanner,
    ops: packageOps,
    outlivePlan: packageOpsOutlivingPlan,
  },
  {
    name: "Record",
    document: recordKind,
    live: recordLive,
    steps: recordSteps,
    planner: recordPlanner,
    ops: recordOps,
  },
]);

/** The kinds value of egp's own kinds: what the orchestrators use when they are given none. */
export const BUILT_IN_KINDS: Kinds = createKinds(builtInKinds);
