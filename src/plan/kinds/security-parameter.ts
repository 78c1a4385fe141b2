import type { DesiredAbsent, DesiredSecurityParameter, DesiredState } from "../../manifest/index.ts";
import type { SecurityParameter } from "../../wire/index.ts";
import { same } from "../compare.ts";
import type { Change, FieldChange } from "../model.ts";
import { prunePass } from "../prune.ts";
import {
  type KindPlan,
  type KindPlanner,
  mergeObjects,
  type ParametersAfterPlan,
  type PlanInput,
  type PlanProblem,
} from "./kind.ts";
import { makeStep } from "./make-step.ts";
import { securityParameterSteps } from "./security-parameter-steps.ts";

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

/**
 * Live parameters with the managed fields applied; a parameter the plan creates has only the fields
 * its manifest gives (the platform's defaults for the others are unknown, so they are not assumed).
 * The platform keeps one default: a manifest that makes a parameter the default takes it from the
 * live one.
 */
function parametersAfterPlan({ desired, live }: Pick<PlanInput, "desired" | "live">): ParametersAfterPlan {
  const byName = new Map<string, Partial<SecurityParameter> & { Name: string }>();
  for (const parameter of live.securityParameters) byName.set(parameter.Name.toLowerCase(), { ...parameter });
  for (const parameter of desired.securityParameters) {
    const key = parameter.name.toLowerCase();
    byName.set(key, { ...byName.get(key), ...parameter.fields, Name: parameter.name });
  }
  for (const absent of absentParameters(desired)) byName.delete(absent.key);
  const wanted = desired.securityParameters.find((p) => p.fields.Default === true);
  const current = live.securityParameters.find((p) => p.Default);
  const name = wanted?.name ?? current?.Name;
  const found = name === undefined ? undefined : byName.get(name.toLowerCase());
  // A manifest that takes Default away from the live default leaves none the plan can know.
  return found && found.Default !== false ? { byName, default: found } : { byName };
}

function absentParameters(desired: DesiredState): DesiredAbsent[] {
  return desired.absent.filter((a) => a.kind === KIND);
}

/**
 * `ensure: absent` on a parameter the platform must keep: the default one, or one a user has (on
 * the instance, or in the manifests).
 */
function absentRefusals({ desired, live }: Pick<PlanInput, "desired" | "live">): PlanProblem[] {
  const environment = desired.environment.name;
  return absentParameters(desired).flatMap((absent) => {
    const current = live.securityParameters.find((p) => p.Name.toLowerCase() === absent.key);
    const problem = (message: string): PlanProblem[] => [
      { ...absent.source, path: absent.path, message, subject: { kind: KIND, key: absent.name } },
    ];
    const madeDefault = desired.securityParameters.some((p) => p.fields.Default === true);
    if (current?.Default && !madeDefault)
      return problem(
        `"${absent.name}" is the default security parameter of ${environment}; make another one the default first`,
      );
    const holders = [
      ...live.users.filter((u) => current && u.user.SecurityId === current.Id).map((u) => u.user.UserName),
      ...desired.users
        .filter((u) => u.securityParameter?.toLowerCase() === absent.key)
        .map((u) => u.userName),
    ];
    const names = [...new Set(holders)];
    if (names.length === 0) return [];
    const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? `, and ${names.length - 5} more` : "");
    return problem(
      `"${absent.name}" is still the security parameter of ${names.length} user(s) on ${environment} (${shown}); give them another one first`,
    );
  });
}

/** Security parameters: keyed by Name (case-insensitive, as the platform keeps names unique). */
export const securityParameterPlanner: KindPlanner = {
  kind: KIND,
  order: 10,
  unverifiable: [],
  documents: { plural: "securityParameters", keyOf: (parameter: DesiredSecurityParameter) => parameter.name },
  // A parameter is deleted only when no user has it.
  reads: ["User"],
  objects({ desired, live }) {
    return mergeObjects(
      [
        ...desired.securityParameters.map((p) => ({ key: p.name, desired: p })),
        ...absentParameters(desired).map((a) => ({ key: a.name, desired: a })),
      ],
      live.securityParameters.map((p) => ({ key: p.Name, live: p })),
    );
  },
  refusals: absentRefusals,
  leaves: (input) => ({ securityParameters: parametersAfterPlan(input) }),
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

    const prune = options.allowDelete ? "delete" : desired.prune.securityParameters;
    const desiredUserParameters = new Set(desired.users.map((u) => u.securityParameter?.toLowerCase()));
    // One pass over the users, not one per unmanaged parameter.
    const liveUserParameters = new Set(live.users.map((u) => u.user.SecurityId));
    /** A loud delete of one live parameter, saying why (its manifest, or the prune policy). */
    const planDelete = (name: string, why: string, source?: Change["source"]) => {
      const change: Change = {
        id: parameterChangeId(name),
        kind: KIND,
        key: name,
        action: "delete",
        fields: [],
        notes: [why],
        destructive: true,
        ...(source ? { source } : {}),
      };
      result.changes.push(change);
      result.steps.push(makeStep(change, "securityParameter.delete", environment, { name }));
    };
    result.excluded = prunePass(
      {
        kind: KIND,
        live: live.securityParameters,
        keyOf: (parameter) => parameter.Name.toLowerCase(),
        nameOf: (parameter) => parameter.Name,
        present: desired.securityParameters.map((p) => p.name.toLowerCase()),
        absent: absentParameters(desired),
        exclude: desired.prune.exclude.securityParameters,
      },
      {
        // Refused beforehand when it is the default or in use (absentRefusals).
        absent: (parameter, gone) =>
          planDelete(parameter.Name, "ensure: absent in the manifests", gone.source),
        unmanaged: (parameter) => {
          const inUse =
            parameter.Default ||
            desiredUserParameters.has(parameter.Name.toLowerCase()) ||
            liveUserParameters.has(parameter.Id);
          if (prune !== "delete" || inUse) result.unmanaged.push({ kind: KIND, key: parameter.Name });
          else planDelete(parameter.Name, "not in the manifests; the prune policy deletes it");
        },
      },
    );
    return result;
  },
};
