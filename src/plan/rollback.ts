import { createHash } from "node:crypto";
import type { InstallCodeOverrides } from "../manifest/index.ts";
import type { PackageObjectParts, PackageObjectType } from "../state/index.ts";
import { canonicalJson } from "./compare.ts";
import { installName } from "./install-name.ts";
import { makeStep } from "./kinds/make-step.ts";
import { KIND } from "./kinds/package.ts";
import { BUILT_IN_STEP_INPUTS, type StepInputIn } from "./kinds/steps.ts";
import { type Change, type FieldChange, PLAN_FORMAT_VERSION, type Plan } from "./model.ts";
import { summarize } from "./plan-changes.ts";

/*
 * `egp rollback`: installs the snapshot a promotion took of the target, with create-and-update,
 * override layout and InactivateUnusedFields, then checks that every part of the snapshot reads
 * as it did. An install adds and updates; it never deletes. So the plan names, before anyone
 * agrees to it, what the rollback can't undo: the objects the promotion created (the interface
 * can't delete an application), the parts it added that stay (levels, layouts of new levels,
 * event rules and actions), and the fields it added, which are deactivated and renamed.
 */

interface Packed {
  guid: string;
  type: PackageObjectType;
  name: string;
}

/** What the planner needs of an install record (src/apply/releases.ts). */
export interface RollbackRelease {
  id: string;
  /** The release the install installed; absent for a live promotion. */
  release?: string;
  sourceEnvironment?: string;
  environment: string;
  package: { name: string };
  snapshot: {
    digest: string;
    takenAt: string;
    objects: Array<Packed & { parts: Record<string, string> }>;
  };
  created: Packed[];
  startedAt: string;
}

export interface RollbackInput {
  release: RollbackRelease;
  /** The target's objects of the snapshot as they are now, with their parts. */
  live: Record<string, PackageObjectParts>;
  /** Given to the names of the fields the install deactivates. */
  prefix: string;
  createdAt: string;
  /** The target's environment file's `installCodes`: the codes its install is sent. */
  installCodes?: InstallCodeOverrides;
}

export const DEFAULT_ROLLBACK_PREFIX = "ROLLBACK_";

const kindOf = (key: string) => key.split(":")[0] ?? "";

/** How one object of the snapshot differs from the target now, and what an install leaves. */
function objectRollback(
  object: RollbackRelease["snapshot"]["objects"][number],
  live: PackageObjectParts | undefined,
  prefix: string,
) {
  const restored: string[] = [];
  const deactivated: string[] = [];
  const stays: string[] = [];
  const levels = new Set(
    Object.keys(object.parts)
      .filter((key) => kindOf(key) === "level")
      .map((key) => key.slice("level:".length)),
  );
  for (const [key, fingerprint] of Object.entries(object.parts)) {
    const now = live?.parts[key];
    if (now?.fingerprint !== fingerprint) restored.push(now?.label ?? key);
  }
  // A level has one layout: a snapshot's layout gone from the target was replaced by another one.
  const replacedLayout = Object.keys(object.parts).some(
    (key) => kindOf(key) === "layout" && !live?.parts[key],
  );
  for (const [key, part] of Object.entries(live?.parts ?? {})) {
    if (key in object.parts) continue;
    const kind = kindOf(key);
    // Override layout puts the snapshot's layout back in this one's place (counted above).
    const replaced = kind === "layout" && part.level !== null && levels.has(part.level) && replacedLayout;
    if (kind === "field") {
      if (!part.name.startsWith(prefix)) deactivated.push(JSON.stringify(part.name));
    } else if (!replaced) stays.push(part.label);
  }
  return { restored, deactivated, stays };
}

export interface RollbackPlan {
  /** No changes when the target already has the snapshot's versions. */
  plan: Plan;
  /** What the rollback can't undo, by name (also the notes of the plan's change). */
  notes: string[];
}

/** The plan of a rollback to a release's snapshot. Pure: the caller reads the live parts. */
export function planRollback(input: RollbackInput): RollbackPlan {
  const { release, live, prefix } = input;
  const environment = release.environment;
  const snapshot = release.snapshot;
  const fields: FieldChange[] = [];
  const stays: string[] = [];
  const deactivated: string[] = [];
  for (const object of snapshot.objects) {
    const found = objectRollback(object, live[object.guid], prefix);
    if (found.restored.length > 0 || found.deactivated.length > 0)
      fields.push({
        field: `${object.type} ${object.name}`,
        before: [
          found.restored.length ? `${found.restored.length} part(s) differ from the snapshot` : "",
          found.deactivated.length ? `${found.deactivated.length} added field(s) active` : "",
        ]
          .filter(Boolean)
          .join(", "),
        after: `as on ${snapshot.takenAt}`,
        verifiable: true,
      });
    if (found.stays.length > 0) stays.push(`${object.name}: ${found.stays.join(", ")}`);
    if (found.deactivated.length > 0) deactivated.push(`${object.name}: ${found.deactivated.join(", ")}`);
  }
  const created = release.created.map((o) => `${o.type} "${o.name}"`);
  const notes = [
    `rolls back ${installName(release)} (promoted ${release.startedAt}) to the snapshot taken before it`,
    ...(created.length > 0
      ? [`created by the promotion; the interface can't delete them: ${created.join(", ")}`]
      : []),
    ...(stays.length > 0
      ? [`added by the promotion, which an install can't remove: ${stays.join("; ")}`]
      : []),
    ...(deactivated.length > 0
      ? [`added by the promotion, deactivated and renamed ${prefix}…: ${deactivated.join("; ")}`]
      : []),
  ];
  // Canonical: the live parts come in the order the instance lists them.
  const liveDigest = createHash("sha256").update(canonicalJson(live)).digest("hex");
  const id = createHash("sha256")
    .update(JSON.stringify([environment, release.id, liveDigest, prefix]))
    .digest("hex")
    .slice(0, 16);
  // Something to install only when a part differs; what can't be undone is said either way.
  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    id,
    environment,
    createdAt: input.createdAt,
    digests: { manifests: release.id, live: liveDigest, liveParts: {} },
    options: { allowDelete: false, enforceRoles: false },
    changes: [],
    steps: [],
    unmanaged: [],
    excluded: [],
    summary: summarize([]),
  };
  if (fields.length === 0) return { plan, notes };
  const change: Change = {
    id: `${KIND}/${release.package.name}`,
    kind: KIND,
    key: release.package.name,
    action: "rollback",
    fields,
    notes,
    destructive: false,
  };
  const install: StepInputIn<"package.install"> = {
    inactivateUnusedFields: true,
    prefixInactivatedFields: prefix,
    // The snapshot's own translations go back too: they are the target's. The codes are the assumed
    // ones of createAndUpdate, override and install, unless the target's environment file gives them.
    objects: snapshot.objects.map((o) => ({
      guid: o.guid,
      type: o.type,
      name: o.name,
      installMethod: input.installCodes?.installMethod?.createAndUpdate ?? 2,
      installOption: input.installCodes?.installOption?.override ?? 2,
      translationOption: input.installCodes?.translationOption?.install ?? 1,
    })),
  };
  const at = (verb: string) => `${change.id}#${verb}`;
  const steps = [
    makeStep(change, "package.upload", environment, { artifact: snapshot.digest }),
    makeStep(change, "package.install", environment, install, [at("upload")]),
    makeStep(change, "package.rollback-verify", environment, { release: release.id }, [at("install")]),
  ];
  return { plan: { ...plan, changes: [change], steps, summary: summarize([change]) }, notes };
}

/**
 * What a saved rollback's plan was made for: the install it rolls back and the prefix of the fields
 * it deactivates, read from its own steps, so that it is planned again the same way before it runs.
 * Undefined for any other plan.
 */
export function rollbackOfPlan(plan: Plan): { release: string; prefix: string } | undefined {
  const change = plan.changes.find((c) => c.action === "rollback");
  if (!change) return undefined;
  const input = (op: string) => plan.steps.find((s) => s.change === change.id && s.op === op)?.input;
  const verify = BUILT_IN_STEP_INPUTS["package.rollback-verify"].safeParse(input("package.rollback-verify"));
  const install = BUILT_IN_STEP_INPUTS["package.install"].safeParse(input("package.install"));
  if (!verify.success) return undefined;
  return {
    release: verify.data.release,
    prefix: (install.success && install.data.prefixInactivatedFields) || DEFAULT_ROLLBACK_PREFIX,
  };
}
