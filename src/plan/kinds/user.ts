import type {
  DesiredAbsent,
  DesiredContact,
  DesiredState,
  DesiredUser,
  FieldSource,
  NamedId,
} from "../../manifest/index.ts";
import type { LiveState, LiveUser } from "../../state/live-state.ts";
import type { Contact } from "../../wire/index.ts";
import { same } from "../compare.ts";
import { type Change, type FieldChange, SENSITIVE, type Step } from "../model.ts";
import { passwordRulesOf, passwordShortfalls } from "../password-rules.ts";
import { prunePass } from "../prune.ts";
import {
  type KindPlan,
  type KindPlanner,
  mergeObjects,
  type ParametersAfterPlan,
  type PlanInput,
  type PlanProblem,
  resourceDependency,
} from "./kind.ts";
import { makeStep } from "./make-step.ts";
import type { StepInputIn } from "./steps.ts";
import { userSteps } from "./user-steps.ts";

export const KIND = userSteps.kind;
const ACTIVE = 1;
const INACTIVE = 2;

function contactKey(c: DesiredContact | Contact): string {
  return JSON.stringify([
    c.ContactType,
    c.ContactSubType,
    Boolean(c.IsDefault),
    c.Value.trim().toLowerCase(),
  ]);
}

function sortedContacts(contacts: readonly (DesiredContact | Contact)[]): DesiredContact[] {
  const plain = contacts.map((c) => ({
    ContactType: c.ContactType,
    ContactSubType: c.ContactSubType,
    IsDefault: Boolean(c.IsDefault),
    Value: c.Value,
  }));
  if (plain.length < 2) return plain;
  // Each key is made once, not once per comparison.
  const keys = new Map(plain.map((c) => [c, contactKey(c)]));
  return plain.sort((a, b) => ((keys.get(a) ?? "") < (keys.get(b) ?? "") ? -1 : 1));
}

function names(list: readonly NamedId[], ids: readonly number[]): string[] {
  return ids.map((id) => list.find((n) => n.id === id)?.name ?? `#${id}`);
}

/**
 * What every user's comparison looks up, made once per plan rather than once per user: the live
 * security parameters by lower-case name (the first of a name, as a search in list order finds it)
 * and by id, the groups read, and the groups' names.
 */
interface UserLookups {
  parameterByName: Map<string, number>;
  parameterById: Map<number, string>;
  groupsRead: Set<number>;
  groupNames: NamedId[];
  roleNames: NamedId[];
}

function lookupsOf(desired: DesiredState, live: LiveState): UserLookups {
  const parameterByName = new Map<string, number>();
  const parameterById = new Map<number, string>();
  for (const p of live.securityParameters) {
    const name = p.Name.toLowerCase();
    if (!parameterByName.has(name)) parameterByName.set(name, p.Id);
    if (!parameterById.has(p.Id)) parameterById.set(p.Id, p.Name);
  }
  return {
    parameterByName,
    parameterById,
    groupsRead: new Set(live.groupsRead),
    groupNames: groupNamesOf(desired, live),
    roleNames: roleNamesOf(desired, live),
  };
}

/** The security parameter the manifest names, as the live id, or the name when it is yet to be made. */
function parameterId(desired: DesiredUser, lookups: UserLookups): number | string | undefined {
  if (!desired.securityParameter) return undefined;
  return lookups.parameterByName.get(desired.securityParameter.toLowerCase()) ?? desired.securityParameter;
}

/*
 * Shortcuts for the common case of a user with at most one contact and one group on either side:
 * true when the full comparison below would find no difference, without its sorted copies. False
 * means "compare in full", which also makes what the plan shows of a difference.
 */
function contactsUnchanged(live: readonly Contact[], desired: readonly DesiredContact[]): boolean {
  if (live.length > 1 || desired.length > 1) return false;
  const a = live[0];
  const b = desired[0];
  if (!a || !b) return a === b;
  return (
    same(a.ContactType, b.ContactType) &&
    same(a.ContactSubType, b.ContactSubType) &&
    Boolean(a.IsDefault) === Boolean(b.IsDefault) &&
    same(a.Value, b.Value)
  );
}

function groupsUnchanged(
  live: readonly number[],
  desired: readonly { id: number }[],
  read: ReadonlySet<number>,
): boolean {
  if (live.length > 1 || desired.length > 1) return false;
  const before = live[0] !== undefined && read.has(live[0]) ? live[0] : undefined;
  return before === desired[0]?.id;
}

/** Verifiable differences of a live user, in the interface's field names. */
function differences(desired: DesiredUser, current: LiveUser, lookups: UserLookups): FieldChange[] {
  const changes: FieldChange[] = [];
  const fields = desired.fields;
  for (const field of Object.keys(fields) as Array<keyof typeof fields>) {
    if (field === "AccountStatus") continue;
    const before = current.user[field as keyof LiveUser["user"]];
    const after = fields[field];
    if (!same(before, after)) changes.push({ field, before, after, verifiable: true });
  }
  const status = desired.fields.AccountStatus;
  if (status !== undefined && status !== current.user.AccountStatus) {
    changes.push({
      field: "AccountStatus",
      before: current.user.AccountStatus,
      after: status,
      verifiable: true,
    });
  }
  const securityId = parameterId(desired, lookups);
  if (securityId !== undefined && securityId !== current.user.SecurityId) {
    const before = lookups.parameterById.get(current.user.SecurityId) ?? current.user.SecurityId;
    changes.push({ field: "SecurityParameter", before, after: desired.securityParameter, verifiable: true });
  }
  if (desired.contacts && !contactsUnchanged(current.contacts, desired.contacts)) {
    const [before, after] = [sortedContacts(current.contacts), sortedContacts(desired.contacts)];
    if (!same(before, after)) changes.push({ field: "Contacts", before, after, verifiable: true });
  }
  if (desired.groups && !groupsUnchanged(current.groups, desired.groups, lookups.groupsRead)) {
    const { groupsRead: read, groupNames } = lookups;
    const before = current.groups.filter((id) => read.has(id)).sort((a, b) => a - b);
    const after = desired.groups.map((g) => g.id).sort((a, b) => a - b);
    if (!same(before, after)) {
      changes.push({
        field: "Groups",
        before: names(groupNames, before),
        after: names(groupNames, after),
        verifiable: true,
      });
    }
  }
  if (desired.roles && current.roles !== undefined) {
    const before = [...current.roles].sort((a, b) => a - b);
    const after = desired.roles.map((r) => r.id).sort((a, b) => a - b);
    if (!same(before, after)) {
      const { roleNames } = lookups;
      changes.push({
        field: "Roles",
        before: names(roleNames, before),
        after: names(roleNames, after),
        verifiable: true,
      });
    }
  }
  return changes;
}

/** The roles' names, the instance's first (a role the map misnames is refused before this shows it). */
function roleNamesOf(desired: DesiredState, live: LiveState): NamedId[] {
  const listed = (live.rolesListed ?? []).map((r) => ({ name: r.Name, id: r.Id }));
  return [...listed, ...Object.entries(desired.environment.roles).map(([name, id]) => ({ name, id }))];
}

function groupNamesOf(desired: DesiredState, live: LiveState): NamedId[] {
  const listed = (live.groupsListed ?? []).map((g) => ({ name: g.Name, id: g.Id }));
  return [...Object.entries(desired.environment.groups).map(([name, id]) => ({ name, id })), ...listed];
}

/**
 * A user's memberships written by name (groups and roles alike, where the environment has no map of
 * them) are resolved against what the instance lists: `undefined` where it was not asked, `null`
 * where it does not answer that call.
 */
interface Membership {
  noun: "group" | "role";
  /** The environment file's map that stands in where the instance can't list them. */
  map: "groups" | "roles";
  /** Why the instance's list is missing, in words. */
  unlisted: string;
  listed: (live: LiveState) => ReadonlyArray<{ Id: number; Name: string }> | null | undefined;
  names: (user: DesiredUser) => DesiredUser["groupNames"];
}

const GROUPS: Membership = {
  noun: "group",
  map: "groups",
  unlisted: "it does not offer core/system/group",
  listed: (live) => live.groupsListed,
  names: (user) => user.groupNames,
};

const ROLES: Membership = {
  noun: "role",
  map: "roles",
  unlisted: "it does not answer core/system/role",
  listed: (live) => live.rolesListed,
  names: (user) => user.roleNames,
};

/** The instance's entry of that name: the same spelling first, else the same name in another case. */
function listedNamed(
  of: Membership,
  live: LiveState,
  name: string,
): { Id: number; Name: string } | undefined {
  const listed = of.listed(live) ?? [];
  return (
    listed.find((g) => g.Name === name) ?? listed.find((g) => g.Name.toLowerCase() === name.toLowerCase())
  );
}

/** The names resolved to the instance's ids, in id order; names that resolve to nothing are refusals. */
function resolvedNames(of: Membership, user: DesiredUser, live: LiveState): NamedId[] | undefined {
  return of
    .names(user)
    ?.flatMap(({ name }) => {
      const entry = listedNamed(of, live, name);
      return entry ? [{ name, id: entry.Id }] : [];
    })
    .sort((a, b) => a.id - b.id);
}

/** The user with its group and role names resolved against what the instance lists. */
function withListedNames(user: DesiredUser, live: LiveState): DesiredUser {
  const groups = resolvedNames(GROUPS, user, live);
  const roles = resolvedNames(ROLES, user, live);
  return { ...user, ...(groups && { groups }), ...(roles && { roles }) };
}

/** Names that can't be resolved: not among the instance's entries, or the instance can't list them. */
function nameRefusals(
  of: Membership,
  user: DesiredUser,
  live: LiveState,
  desired: DesiredState,
): PlanProblem[] {
  const names = of.names(user);
  const listed = of.listed(live);
  if (!names || listed === undefined) return [];
  const { name: environment, file } = desired.environment;
  if (listed === null) {
    return names.map(({ name, source }) => ({
      ...source,
      message: `${of.noun} "${name}" can't be resolved: ${environment} does not list its ${of.map} (${of.unlisted}), so ${file} needs a ${of.map} map (${of.map}: { ${JSON.stringify(name)}: <id> })`,
    }));
  }
  return names
    .filter(({ name }) => !listedNamed(of, live, name))
    .map(({ name, source }) => ({
      ...source,
      message: `${of.noun} "${name}" does not exist on ${environment} (its ${of.map}: ${listed.map((g) => g.Name).join(", ") || "none"})`,
    }));
}

/** The roles a create writes, or an update enforces where they can't be read back. */
function rolesField(desired: DesiredUser, current?: LiveUser): FieldChange[] {
  if (!desired.roles || current?.roles !== undefined) return [];
  return [{ field: "Roles", after: desired.roles.map((r) => r.name), verifiable: false }];
}

/**
 * Entries of the environment's roles map that the instance's own list contradicts: the name is
 * another id there, or the id is another role's. A plan written with such a map would give users
 * roles nobody reviewed.
 */
function roleMapRefusals(desired: DesiredState, live: LiveState): PlanProblem[] {
  const listed = live.rolesListed;
  if (!listed) return [];
  const { name: environment, file, source } = desired.environment;
  const problems: PlanProblem[] = [];
  for (const [name, id] of Object.entries(desired.environment.roles)) {
    const byName = listedNamed(ROLES, live, name);
    const byId = listed.find((r) => r.Id === id);
    if (byName?.Id === id) continue;
    const instance = byName
      ? `${environment}'s role "${byName.Name}" is ${byName.Id}`
      : `${environment} has no role "${name}"`;
    const other = byId && byId !== byName ? ` and its role ${id} is "${byId.Name}"` : "";
    problems.push({
      ...source,
      path: `roles.${name}`,
      message: `${file} maps role "${name}" to ${id}, but ${instance}${other}`,
    });
  }
  return problems;
}

function managedInput(desired: DesiredUser): Omit<StepInputIn<"user.create">, "passwordFrom"> {
  return {
    userName: desired.userName,
    fields: desired.fields,
    securityParameter: desired.securityParameter,
    roles: desired.roles?.map((r) => r.id),
    groups: desired.groups?.map((g) => g.id),
    contacts: desired.contacts,
  };
}

function parameterDependency(desired: DesiredUser): string[] {
  return desired.securityParameter
    ? [resourceDependency("SecurityParameter", desired.securityParameter)]
    : [];
}

function planCreate(desired: DesiredUser, environment: string): { change: Change; steps: Step[] } {
  const fields: FieldChange[] = Object.entries(desired.fields).map(([field, after]) => ({
    field,
    after,
    verifiable: true,
  }));
  if (desired.securityParameter)
    fields.push({ field: "SecurityParameter", after: desired.securityParameter, verifiable: true });
  if (desired.contacts)
    fields.push({ field: "Contacts", after: sortedContacts(desired.contacts), verifiable: true });
  if (desired.groups)
    fields.push({ field: "Groups", after: desired.groups.map((g) => g.name), verifiable: true });
  fields.push(...rolesField(desired));
  fields.push({ field: "Password", after: SENSITIVE, verifiable: false });
  const change: Change = {
    id: `${KIND}/${desired.key}`,
    kind: KIND,
    key: desired.userName,
    action: "create",
    fields,
    notes: desired.initialPassword
      ? ["password from the manifest's initialPassword"]
      : ["password generated to fit the target's security parameter; ForcePasswordChange is set"],
    destructive: false,
    source: desired.source,
  };
  const input: StepInputIn<"user.create"> = {
    ...managedInput(desired),
    passwordFrom: desired.initialPassword ? "manifest" : "generated",
  };
  return {
    change,
    steps: [makeStep(change, "user.create", environment, input, parameterDependency(desired))],
  };
}

function planUpdate(
  desired: DesiredUser,
  current: LiveUser,
  lookups: UserLookups,
  enforceRoles: boolean,
  environment: string,
): { change: Change; steps: Step[] } | undefined {
  const fields = differences(desired, current, lookups);
  // Roles read back are compared like any field; where they can't be, --enforce-roles writes them.
  const enforce = enforceRoles && desired.roles !== undefined && current.roles === undefined;
  if (fields.length === 0 && !enforce) return undefined;
  const unread = desired.roles !== undefined && current.roles === undefined;
  const change: Change = {
    id: `${KIND}/${desired.key}`,
    kind: KIND,
    key: desired.userName,
    action: "update",
    fields: [...fields, ...rolesField(desired, current)],
    notes: unread ? ["roles are enforced on write and can't be read back to verify"] : [],
    destructive: false,
    source: desired.source,
  };
  const steps: Step[] = [];
  // Activate and deactivate have calls of their own; Locked is set through an update.
  const status = desired.fields.AccountStatus;
  const statusByCall = status !== undefined && status !== current.user.AccountStatus && status !== 3;
  const otherFields = fields.filter((f) => f.field !== "AccountStatus");
  if (otherFields.length > 0 || (status === 3 && status !== current.user.AccountStatus) || enforce) {
    steps.push(
      makeStep(
        change,
        "user.update",
        environment,
        { ...managedInput(desired), id: current.user.Id },
        parameterDependency(desired),
      ),
    );
  }
  if (statusByCall) {
    const op = status === ACTIVE ? "user.activate" : "user.deactivate";
    steps.push(
      makeStep(
        change,
        op,
        environment,
        { userName: desired.userName, id: current.user.Id },
        steps.map((s) => s.id),
      ),
    );
  }
  return { change, steps };
}

function fieldSource(user: DesiredUser, field: "initialPassword" | "securityParameter"): FieldSource {
  return user.fieldSources?.[field] ?? { ...user.source, path: field };
}

function list(phrases: readonly string[]): string {
  return phrases.length < 2 ? (phrases[0] ?? "") : `${phrases.slice(0, -1).join(", ")} and ${phrases.at(-1)}`;
}

/**
 * What the platform would refuse of one user: a security parameter that will not exist, or, for a
 * user to be created, an initialPassword that the parameter it gets (the named one, else the
 * default) will not accept. The password itself is never part of a message.
 */
function userRefusals(
  user: DesiredUser,
  parameters: ParametersAfterPlan,
  exists: (key: string) => boolean,
  environment: string,
): PlanProblem[] {
  const named = user.securityParameter;
  const parameter = named ? parameters.byName.get(named.toLowerCase()) : parameters.default;
  if (named && !parameter) {
    return [
      {
        ...fieldSource(user, "securityParameter"),
        message: `security parameter "${named}" does not exist on ${environment}, and no manifest for ${environment} defines it`,
      },
    ];
  }
  if (!user.initialPassword || !parameter || exists(user.key)) return [];
  const shortfalls = passwordShortfalls(user.initialPassword.reveal(), passwordRulesOf(parameter));
  if (shortfalls.length === 0) return [];
  const which = named ? "its" : "the default";
  return [
    {
      ...fieldSource(user, "initialPassword"),
      message: `the platform would refuse this password: ${which} security parameter "${parameter.Name}", as this plan leaves it, requires ${list(shortfalls)}`,
    },
  ];
}

function absentUsers(desired: DesiredState): DesiredAbsent[] {
  return desired.absent.filter((a) => a.kind === KIND);
}

/** `ensure: absent` on the account egp logs in as would lock egp out mid-apply. */
function absentRefusals(desired: DesiredState): PlanProblem[] {
  const { auth, name } = desired.environment;
  return absentUsers(desired)
    .filter((a) => a.key === auth.username.toLowerCase())
    .map((a) => ({
      ...a.source,
      path: a.path,
      message: `"${a.name}" is the account egp logs in as to ${name}; it can't be deleted`,
      subject: { kind: KIND, key: a.name },
    }));
}

/** A user that `ensure: absent` deletes: shown loudly, with no flag needed (it is in the reviewed manifests). */
function planAbsent(
  absent: DesiredAbsent,
  current: LiveUser,
  environment: string,
): { change: Change; steps: Step[] } {
  const change: Change = {
    id: `${KIND}/${absent.key}`,
    kind: KIND,
    key: current.user.UserName,
    action: "delete",
    fields: [],
    notes: ["ensure: absent in the manifests"],
    destructive: true,
    source: absent.source,
  };
  return {
    change,
    steps: [
      makeStep(change, "user.delete", environment, { userName: current.user.UserName, id: current.user.Id }),
    ],
  };
}

/** An unmanaged user the prune policy deactivates or deletes: shown loudly. */
function planPrune(
  current: LiveUser,
  prune: "deactivate" | "delete",
  environment: string,
): { change: Change; steps: Step[] } {
  const key = current.user.UserName.toLowerCase();
  const change: Change = {
    id: `${KIND}/${key}`,
    kind: KIND,
    key: current.user.UserName,
    action: prune,
    fields:
      prune === "deactivate"
        ? [
            {
              field: "AccountStatus",
              before: current.user.AccountStatus,
              after: INACTIVE,
              verifiable: true,
            },
          ]
        : [],
    notes: [`not in the manifests; the prune policy ${prune === "delete" ? "deletes" : "deactivates"} it`],
    destructive: true,
  };
  const op = prune === "delete" ? "user.delete" : "user.deactivate";
  return {
    change,
    steps: [makeStep(change, op, environment, { userName: current.user.UserName, id: current.user.Id })],
  };
}

/** What a user is checked against when no kind says what the plan leaves of the parameters. */
const NO_PARAMETERS: ParametersAfterPlan = { byName: new Map() };

/** Users: keyed by UserName, case-insensitively. */
export const userPlanner: KindPlanner = {
  kind: KIND,
  order: 20,
  unverifiable: ["Roles", "Password"],
  documents: { plural: "users", keyOf: (user: DesiredUser) => user.userName },
  // A user's plan checks its password against the security parameters as the plan leaves them.
  reads: ["SecurityParameter"],
  objects({ desired, live }) {
    return mergeObjects(
      [
        ...desired.users.map((u) => ({ key: u.userName, desired: u })),
        ...absentUsers(desired).map((a) => ({ key: a.name, desired: a })),
      ],
      live.users.map((u) => ({
        key: u.user.UserName,
        live: { ...u, user: { ...u.user, LastLoginDate: null } },
      })),
    );
  },
  refusals({ desired, live, planned }: PlanInput): PlanProblem[] {
    const parameters = planned.securityParameters ?? NO_PARAMETERS;
    // Only a user with an initialPassword asks whether it exists: the names are gathered then.
    let existing: Set<string> | undefined;
    const exists = (key: string) => {
      existing ??= new Set(live.users.map((u) => u.user.UserName.toLowerCase()));
      return existing.has(key);
    };
    const problems: PlanProblem[] = [];
    const add = (user: DesiredUser, found: readonly PlanProblem[]) => {
      for (const problem of found) problems.push({ ...problem, subject: { kind: KIND, key: user.userName } });
    };
    for (const user of desired.users) {
      add(user, nameRefusals(GROUPS, user, live, desired));
      add(user, nameRefusals(ROLES, user, live, desired));
      add(user, userRefusals(user, parameters, exists, desired.environment.name));
    }
    problems.push(...absentRefusals(desired));
    problems.push(...roleMapRefusals(desired, live));
    return problems;
  },
  plan({ desired, live, options }: PlanInput): KindPlan {
    const result: KindPlan = { changes: [], steps: [], unmanaged: [] };
    const environment = desired.environment.name;
    // Each live name, with whether a manifest describes it (for the prune pass below).
    const liveByName = new Map<string, { current: LiveUser; described: boolean }>();
    for (const u of live.users)
      liveByName.set(u.user.UserName.toLowerCase(), { current: u, described: false });
    const lookups = lookupsOf(desired, live);

    for (const written of desired.users) {
      const user = withListedNames(written, live);
      const named = liveByName.get(user.key);
      if (named) named.described = true;
      const current = named?.current;
      const planned = current
        ? planUpdate(user, current, lookups, options.enforceRoles ?? false, environment)
        : planCreate(user, environment);
      if (!planned) continue;
      result.changes.push(planned.change);
      result.steps.push(...planned.steps);
    }

    const self = desired.environment.auth.username.toLowerCase();
    const prune = options.allowDelete ? "delete" : desired.prune.users;
    const add = (planned: { change: Change; steps: Step[] }) => {
      result.changes.push(planned.change);
      result.steps.push(...planned.steps);
    };
    result.excluded = prunePass(
      {
        kind: KIND,
        live: live.users,
        keyOf: (current) => current.user.UserName.toLowerCase(),
        nameOf: (current) => current.user.UserName,
        present: (key) => liveByName.get(key)?.described === true,
        absent: absentUsers(desired),
        exclude: desired.prune.exclude.users,
      },
      {
        // The account egp logs in as is refused beforehand (absentRefusals), never deleted.
        absent: (current, gone) => {
          if (gone.key !== self) add(planAbsent(gone, current, environment));
        },
        unmanaged: (current) => {
          // Never prune the account egp itself logs in with.
          const key = current.user.UserName.toLowerCase();
          const deactivateDone = prune === "deactivate" && current.user.AccountStatus === INACTIVE;
          if (prune === "ignore" || key === self || deactivateDone)
            result.unmanaged.push({ kind: KIND, key: current.user.UserName });
          else add(planPrune(current, prune, environment));
        },
      },
    );
    return result;
  },
};
