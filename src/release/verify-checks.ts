import type { PlatformClient } from "../client/client.ts";
import { NotFoundError, PlatformError } from "../client/errors.ts";
import { EgpError } from "../errors/index.ts";
import { checkLabel, type PlacedCheck } from "../manifest/verify-checks.ts";
import { type FieldDefinition, FieldType } from "../wire/index.ts";

/*
 * The checks of behaviour an environment's file lists under `verify.checks`, run after the install
 * and before the release counts as verified there (docs/apply.md, "Checks"). Each reads, or cleans
 * up after itself: the record probe deletes the record it made, and a delete that fails fails the
 * check naming the record's id. A check that can't be made (an instance without role reads) fails:
 * it never passes unchecked.
 */

export interface CheckResult {
  check: string;
  passed: boolean;
  /** What it found, in words: why it failed, or what it saw. */
  found: string;
  /** The content ids of the records a probe made (and deleted, when it passed). */
  probes?: number[];
}

interface Level {
  id: number;
  alias: string;
  fields: FieldDefinition[];
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

async function firstLevel(client: PlatformClient, application: string): Promise<Level> {
  const app = (await client.metadata.applications()).find((candidate) => same(candidate.Name, application));
  if (!app) throw new CheckFailure(`no application "${application}"`);
  const [level] = [...(await client.metadata.levelsByModule(app.Id))].sort((a, b) => a.Id - b.Id);
  if (!level) throw new CheckFailure(`"${application}" has no level`);
  return { id: level.Id, alias: level.Alias, fields: await client.metadata.fieldDefinitions(level.Id) };
}

function fieldOf(level: Level, application: string, name: string): FieldDefinition {
  const field = level.fields.find((candidate) => candidate.Name === name);
  if (!field) throw new CheckFailure(`"${application}" has no field "${name}"`);
  return field;
}

/** A check's failure in its own words, which the check's result carries; any other error (a connection) is the run's. */
class CheckFailure extends EgpError {
  readonly probes: number[];
  constructor(message: string, probes: number[] = []) {
    super("EGP_CHECK_FAILED", message);
    this.name = "CheckFailure";
    this.probes = probes;
  }
}

const text = (value: unknown): string =>
  Array.isArray(value) ? value.map(text).join(", ") : String(value ?? "").trim();

async function recordByKey(
  client: PlatformClient,
  application: string,
  key: Readonly<Record<string, string | number>>,
): Promise<number> {
  const level = await firstLevel(client, application);
  const aliases = Object.keys(key).map((name) => fieldOf(level, application, name).Alias);
  const idField = `${level.alias}_Id`;
  const all = await client.contentApi.allRecords(level.alias, { select: [idField, ...aliases] });
  const wanted = Object.values(key).map((value) => String(value).trim());
  const found = all.filter((record) => aliases.every((alias, at) => text(record[alias]) === wanted[at]));
  const label = wanted.map((part) => JSON.stringify(part)).join(", ");
  if (found.length === 0) throw new CheckFailure(`no record ${label} in "${application}"`);
  if (found.length > 1)
    throw new CheckFailure(
      `${found.length} records ${label} in "${application}" (content ids ${found.map((r) => r[idField]).join(", ")})`,
    );
  return Number(found[0]?.[idField]);
}

async function workflowCheck(client: PlatformClient, check: Extract<PlacedCheck, { kind: "workflow" }>) {
  const id = await recordByKey(client, check.record.application, check.record.key);
  const result = await client.workflow.actions(id).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new CheckFailure(`record ${id} has no workflow job`);
    throw error;
  });
  const offered = result.Actions.map((action) => action.WorkflowTransitionName);
  if (!same(result.WorkflowNodeName, check.node))
    throw new CheckFailure(`record is at node ${JSON.stringify(result.WorkflowNodeName)}`);
  const missing = check.transitions.filter((name) => !offered.some((candidate) => same(candidate, name)));
  if (missing.length > 0)
    throw new CheckFailure(
      `${missing.map((name) => JSON.stringify(name)).join(", ")} ${missing.length === 1 ? "is" : "are"} not offered at ${check.node} (offered: ${offered.map((name) => JSON.stringify(name)).join(", ") || "none"})`,
    );
  return `record ${id} at ${result.WorkflowNodeName} offers ${check.transitions.length} transition(s) named`;
}

/** A probe field's value as the content POST takes it. */
function probeValue(field: FieldDefinition, value: string | number, application: string): unknown {
  if (field.Type === FieldType.ValuesList) {
    const found = field.ValuesListValues.find((candidate) => candidate.Name === String(value));
    if (!found)
      throw new CheckFailure(`no value "${value}" in the values list of "${field.Name}" (${application})`);
    return { ValuesListIds: [found.Id], OtherText: null };
  }
  if (field.Type === FieldType.Numeric) return Number(value);
  if (field.Type === FieldType.Text || field.Type === FieldType.Date) return String(value);
  throw new CheckFailure(
    `"${field.Name}" is not a text, numeric, date or values-list field: a probe can't write it`,
  );
}

async function recordProbe(client: PlatformClient, check: Extract<PlacedCheck, { kind: "record" }>) {
  const level = await firstLevel(client, check.application);
  const fields = Object.entries(check.create).map(([name, value]) => {
    const field = fieldOf(level, check.application, name);
    return { field, value, wire: probeValue(field, value, check.application) };
  });
  const id = await client.content.create({
    LevelId: level.id,
    FieldContents: Object.fromEntries(
      fields.map(({ field, wire }) => [
        String(field.Id),
        { Type: field.Type, Value: wire, FieldId: field.Id },
      ]),
    ),
  });
  let readBack: string | undefined;
  try {
    const record = await client.contentApi.record(level.alias, id, {
      select: fields.map(({ field }) => field.Alias),
    });
    const differing = fields.filter(({ field, value }) => text(record[field.Alias]) !== String(value).trim());
    if (differing.length > 0)
      readBack = `record ${id} reads back with ${differing.map(({ field }) => JSON.stringify(field.Name)).join(", ")} other than written`;
  } finally {
    await client.content.remove(id).catch((error: unknown) => {
      throw new CheckFailure(
        `the probe record ${id} could not be deleted (${(error as Error).message}); delete it by hand`,
        [id],
      );
    });
  }
  if (readBack) throw new CheckFailure(readBack, [id]);
  return { found: `record ${id} created, read back and deleted`, probes: [id] };
}

async function usersCheck(client: PlatformClient, check: Extract<PlacedCheck, { kind: "users" }>) {
  const group = (await client.groups.list()).find((candidate) => same(candidate.Name, check.group));
  if (!group) throw new CheckFailure(`no group "${check.group}"`);
  const members = await client.users.memberIds(group.Id);
  if (members.length === 0) throw new CheckFailure(`group "${check.group}" has no members`);
  const without: number[] = [];
  for (const member of members) {
    const roles = await client.roles.ofUser(member).catch((error: unknown) => {
      if (error instanceof PlatformError && [400, 404, 405, 501].includes(error.status ?? 0))
        throw new CheckFailure("cannot check roles: the instance does not answer the role reads");
      throw error;
    });
    if (!roles.some((role) => same(role.Name, check.hasRole))) without.push(member);
  }
  if (without.length > 0)
    throw new CheckFailure(
      `${without.length} of ${members.length} member(s) lack the role (user ids ${without.join(", ")})`,
    );
  return `${members.length} member(s), each with the role`;
}

async function runOne(client: PlatformClient, check: PlacedCheck): Promise<CheckResult> {
  const label = checkLabel(check);
  try {
    switch (check.kind) {
      case "workflow":
        return { check: label, passed: true, found: await workflowCheck(client, check) };
      case "record":
        return { check: label, passed: true, ...(await recordProbe(client, check)) };
      case "users":
        return { check: label, passed: true, found: await usersCheck(client, check) };
    }
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    return {
      check: label,
      passed: false,
      found: error.message,
      ...(error.probes.length > 0 ? { probes: error.probes } : {}),
    };
  }
}

/** Runs every check, in order; each result, failed ones included. */
export async function runChecks(
  client: PlatformClient,
  checks: readonly PlacedCheck[],
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) results.push(await runOne(client, check));
  return results;
}

/** The failure of a verification whose checks did not all pass: EGP_CHECK_FAILED naming each. */
export function checksFailure(environment: string, results: readonly CheckResult[]): EgpError | undefined {
  const failed = results.filter((result) => !result.passed);
  if (failed.length === 0) return undefined;
  const listed = failed.map((result) => `${result.check}: ${result.found}`).join("; ");
  return new EgpError(
    "EGP_CHECK_FAILED",
    `${environment} is not verified: ${failed.length === 1 ? "a check" : `${failed.length} checks`} failed: ${listed}`,
  );
}
