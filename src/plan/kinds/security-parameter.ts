import type { DesiredSecurityParameter } from "../../manifest/index.ts";
import type { SecurityParameter } from "../../wire/index.ts";
import { same } from "../compare.ts";
import type { Change, FieldChange } from "../model.ts";
import type { KindPlan, KindPlanner, PlanInput } from "./kind.ts";
import { securityParameterSteps } from "./security-parameter-steps.ts";
import { makeStep } from "./steps.ts";

export const KIND = securityParameterSteps.kind;

export function parameterChangeId(name: string): string {
  return `${KIND}/${name}`;
}

/** The time of day of `HH:MM[:SS]` or of an ISO date-time, as HH:MM:SS. */
export function timeOfDay(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const match = /(?:^|T)(\d{1,2}):(\d{2})(?::(\d{2}))?/.exec(value);
  if (!match) return value;
  return `${(match[1] ?? "0").padStart(2, "0")}:${match[2]}:${match[3] ?? "00"}`;
}

function sortedDays(value: unknown): unknown {
  return Array.isArray(value) ? [...(value as number[])].sort((a, b) => a - b) : value;
}

function sortedDates(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return [...(value as { LockedDate: string }[])].sort((a, b) => (a.LockedDate < b.LockedDate ? -1 : 1));
}

/**
 * How a field compares. The manifest gives a time frame as times of day; the platform stores
 * date-times. Days and dates are sets: the platform keeps them in the order they were sent, and the
 * manifest sorts them.
 */
const COMPARABLE: Record<string, (value: unknown) => unknown> = {
  PermittedFromTime: timeOfDay,
  PermittedToTime: timeOfDay,
  DisallowedSessionDays: sortedDays,
  DisallowedDates: sortedDates,
};

function fieldChanges(desired: DesiredSecurityParameter, live: SecurityParameter | undefined): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [field, after] of Object.entries(desired.fields)) {
    const before = live?.[field as keyof SecurityParameter];
    const comparable = COMPARABLE[field] ?? ((value: unknown) => value);
    if (live && same(comparable(before), comparable(after))) continue;
    changes.push({ field, ...(live ? { before } : {}), after, verifiable: true });
  }
  return changes;
}

/** The security parameters as a plan leaves them, by lower-case name, and which one is the default. */
export interface ParametersAfterPlan {
  byName: ReadonlyMap<string, Partial<SecurityParameter> & { Name: string }>;
  default?: Partial<SecurityParameter> & { Name: string };
}

/**
 * Live parameters with the managed fields applied; a parameter the plan creates has only the fields
 * its manifest gives (the platform's defaults for the others are unknown, so they are not assumed).
 * The platform keeps one default: a manifest that makes a parameter the default takes it from the
 * live one.
 */
export function parametersAfterPlan(
  desired: PlanInput["desired"],
  live: PlanInput["live"],
): ParametersAfterPlan {
  const byName = new Map<string, Partial<SecurityParameter> & { Name: string }>();
  for (const parameter of live.securityParameters) byName.set(parameter.Name.toLowerCase(), { ...parameter });
  for (const parameter of desired.securityParameters) {
    const key = parameter.name.toLowerCase();
    byName.set(key, { ...byName.get(key), ...parameter.fields, Name: parameter.name });
  }
  const wanted = desired.securityParameters.find((p) => p.fields.Default === true);
  const current = live.securityParameters.find((p) => p.Default);
  const name = wanted?.name ?? current?.Name;
  const found = name === undefined ? undefined : byName.get(name.toLowerCase());
  // A manifest that takes Default away from the live default leaves none the plan can know.
  return found && found.Default !== false ? { byName, default: found } : { byName };
}

/** Security parameters: keyed by Name (case-insensitive, as the platform keeps names unique). */
export const securityParameterPlanner: KindPlanner = {
  kind: KIND,
  order: 10,
  unverifiable: [],
  plan({ desired, live, options }: PlanInput): KindPlan {
    const result: KindPlan = { changes: [], steps: [], unmanaged: [] };
    const environment = desired.environment.name;
    const liveByName = new Map(live.securityParameters.map((p) => [p.Name.toLowerCase(), p]));

    for (const parameter of desired.securityParameters) {
      const current = liveByName.get(parameter.name.toLowerCase());
      const fields = fieldChanges(parameter, current);
      if (current && fields.length === 0) continue;
      const change: Change = {
        id: parameterChangeId(parameter.name),
        kind: KIND,
        key: parameter.name,
        action: current ? "update" : "create",
        fields,
        notes: [],
        destructive: false,
        source: parameter.source,
      };
      result.changes.push(change);
      const op = current ? "securityParameter.update" : "securityParameter.create";
      result.steps.push(
        makeStep(change, op, environment, { name: parameter.name, fields: parameter.fields }),
      );
    }

    const managed = new Set(desired.securityParameters.map((p) => p.name.toLowerCase()));
    const prune = options.allowDelete ? "delete" : desired.prune.securityParameters;
    const desiredUserParameters = new Set(desired.users.map((u) => u.securityParameter?.toLowerCase()));
    for (const parameter of live.securityParameters) {
      if (managed.has(parameter.Name.toLowerCase())) continue;
      const inUse =
        parameter.Default ||
        desiredUserParameters.has(parameter.Name.toLowerCase()) ||
        live.users.some((u) => u.user.SecurityId === parameter.Id);
      if (prune !== "delete" || inUse) {
        result.unmanaged.push({ kind: KIND, key: parameter.Name });
        continue;
      }
      const change: Change = {
        id: parameterChangeId(parameter.Name),
        kind: KIND,
        key: parameter.Name,
        action: "delete",
        fields: [],
        notes: ["not in the manifests; the prune policy deletes it"],
        destructive: true,
      };
      result.changes.push(change);
      result.steps.push(makeStep(change, "securityParameter.delete", environment, { name: parameter.Name }));
    }
    return result;
  },
};
