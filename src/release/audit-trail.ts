import { createHash } from "node:crypto";
import type { ApplyOutcome } from "../apply/apply-plan.ts";
import { summaryOf } from "../apply/apply-plan.ts";
import type { ApplyResult } from "../apply/executor.ts";
import type { ReleaseRecord } from "../apply/releases.ts";
import { codedMessage } from "../errors/index.ts";
import type { DesiredState, EnvironmentConfig, ReleaseFile } from "../manifest/index.ts";
import { canonicalJson } from "../plan/compare.ts";
import type { Plan } from "../plan/model.ts";
import { printable } from "../plan/render/printable.ts";
import type { ReleaseStore } from "../store/index.ts";
import { actorIdentity, approversOf } from "./actor.ts";
import { type AuditEntry, type AuditRecord, appendAudit } from "./audit.ts";
import { openBreaks } from "./audit-chain.ts";
import type { FreezeDecision } from "./freeze.ts";
import { isRefusal, runUrlOf } from "./notify.ts";

/*
 * The audit records of what egp does to an environment (apply/audit.ts keeps the chain). A record
 * that can't be written is said loudly and never undoes the change: the instance already has it.
 */

export function instanceOf(
  environment: Pick<EnvironmentConfig, "endpoint" | "instance">,
): AuditEntry["instance"] {
  const { endpoint } = environment;
  // A url from `${VAR}` is a secret: the record keeps the reference the file writes.
  const url = endpoint.kind === "http" ? (endpoint.written ?? endpoint.url) : `embedded:${endpoint.seed}`;
  return { url, name: environment.instance };
}

export const planSha256 = (plan: Plan) => createHash("sha256").update(canonicalJson(plan)).digest("hex");

/** The fields every record has, from the process's environment and the clock. */
export function auditBase(
  action: AuditEntry["action"],
  env: NodeJS.ProcessEnv = process.env,
  now = new Date(),
): Pick<AuditEntry, "action" | "at" | "actor" | "runUrl" | "actorSource" | "approvers"> {
  const actor = actorIdentity(env);
  const approvers = approversOf(env);
  return {
    action,
    at: now.toISOString(),
    actor: actor.name,
    actorSource: actor.source,
    runUrl: runUrlOf(env),
    ...(approvers.length > 0 ? { approvers } : {}),
  };
}

const releaseOf = (desired: DesiredState | undefined): AuditEntry["release"] =>
  desired?.release
    ? {
        name: desired.release.name,
        packages: desired.release.packages.map((p) => ({ name: p.name, sha256: p.sha256 })),
      }
    : null;

const changesOf = (plan: Plan | undefined): AuditEntry["changes"] =>
  (plan?.changes ?? []).map((c) => ({ kind: c.kind, name: c.key, action: c.action }));

/**
 * The record of an apply: what it changed, and whether it converged; refused when a gate said no;
 * a `verify` record when it had nothing to change and recorded the release verified.
 */
export function applyEntry(input: {
  environment: string;
  desired?: DesiredState;
  freeze?: FreezeDecision;
  ended: { outcome: ApplyOutcome } | { error: unknown };
  /** The release's verification was recorded by this apply. */
  verified?: boolean;
  /** The sequence of this apply's `apply-started` record. */
  started?: number;
  /** The environment's checks of behaviour, as they ran (verify-checks.ts). */
  checks?: ReadonlyArray<{ check: string; passed: boolean; found: string; probes?: number[] }>;
}): AuditEntry | undefined {
  const { desired, ended } = input;
  const plan = "outcome" in ended && "plan" in ended.outcome ? ended.outcome.plan : undefined;
  const exception =
    input.freeze?.state === "excepted"
      ? {
          file: input.freeze.exception.file,
          reason: input.freeze.exception.reason,
          until: input.freeze.exception.until,
        }
      : null;
  const base = {
    ...auditBase("apply"),
    environment: input.environment,
    instance: desired ? instanceOf(desired.environment) : null,
    planSha256: plan ? planSha256(plan) : null,
    release: releaseOf(desired),
    changes: changesOf(plan),
    exception,
    reason: null,
    ...(input.started === undefined ? {} : { started: input.started }),
    ...(input.checks?.length ? { checks: input.checks.map((check) => ({ ...check })) } : {}),
  };
  if ("error" in ended) {
    const message = codedMessage(ended.error);
    return {
      ...base,
      result: isRefusal(ended.error) ? "refused" : "failed",
      failures: [printable(message.split("\n")[0] ?? "")],
    };
  }
  const { outcome } = ended;
  if (outcome.result === "no-changes")
    return {
      ...base,
      ...(input.verified ? { action: "verify" as const } : {}),
      result: "verified",
      failures: [],
    };
  if (outcome.result !== "complete" && outcome.result !== "incomplete" && outcome.result !== "interrupted")
    return undefined;
  const summary = summaryOf(outcome.plan, outcome.run);
  const failures = summary.failed.map((f) => `${f.step}: ${f.code}`);
  const verified = outcome.result === "complete" && outcome.converged;
  if (outcome.result === "interrupted") failures.push("interrupted");
  else if (!outcome.converged) failures.push("did not converge");
  const verdicts = outcome.run.verdicts ?? [];
  return {
    ...base,
    result: verified ? "verified" : "failed",
    failures,
    ...(verdicts.length > 0 ? { verdicts } : {}),
  };
}

/** Appends the record; one that can't be written is said, and undefined returned. */
export async function writeAudit(
  store: ReleaseStore | undefined,
  entry: AuditEntry | undefined,
  say: (line: string) => void,
): Promise<AuditRecord | undefined> {
  if (!store || !entry) return undefined;
  try {
    // A rollback goes ahead on a broken chain (it is how an incident is handled); its record says so.
    const broken = entry.action === "rollback" ? await openBreaks(store) : undefined;
    return await appendAudit(store, broken ? { ...entry, chainBroken: broken } : entry);
  } catch (error) {
    say(
      `WARNING: the audit record of this ${entry.action} could not be written to ${store.location}: ${(error as Error).message}`,
    );
    return undefined;
  }
}

/** The record an apply appends before its first write to the instance: the plan and its steps. */
export function startedEntry(desired: DesiredState, plan: Plan): AuditEntry {
  return {
    ...auditBase("apply-started"),
    environment: desired.environment.name,
    instance: instanceOf(desired.environment),
    planSha256: planSha256(plan),
    release: releaseOf(desired),
    changes: changesOf(plan),
    result: "recorded",
    failures: [],
    exception: null,
    reason: `${plan.steps.length} step(s): ${plan.steps.map((s) => s.id).join(", ")}`,
  };
}

/** The record of a release built and stored: its packages' sha256s, and where it was built. */
export function releaseCreateEntry(
  environment: Pick<EnvironmentConfig, "name" | "endpoint" | "instance">,
  release: Pick<ReleaseFile, "name" | "packages">,
): AuditEntry {
  return {
    ...auditBase("release-create"),
    environment: environment.name,
    instance: instanceOf(environment),
    planSha256: null,
    release: {
      name: release.name,
      packages: release.packages.map((p) => ({ name: p.name, sha256: p.sha256 })),
    },
    changes: release.packages.map((p) => ({ kind: "Package", name: p.name, action: "build" })),
    result: "recorded",
    failures: [],
    exception: null,
    reason: null,
  };
}

/**
 * The record of a rollback that ran: the install it undid (its release, by name, and the package
 * bytes that install put there), and whether the snapshot reads back.
 */
export function rollbackEntry(
  desired: Pick<DesiredState, "environment">,
  outcome: {
    result: "interrupted" | "incomplete" | "complete";
    run: ApplyResult;
    rollback: { plan: Plan };
    release: Pick<ReleaseRecord, "id" | "release" | "package">;
  },
): AuditEntry {
  const { plan } = outcome.rollback;
  const failures = outcome.run.failed.map((f) => `${f.step}: ${f.code}`);
  if (outcome.result === "interrupted") failures.push("interrupted");
  return {
    ...auditBase("rollback"),
    environment: desired.environment.name,
    instance: instanceOf(desired.environment),
    planSha256: planSha256(plan),
    release: outcome.release.release
      ? {
          name: outcome.release.release,
          packages: [{ name: outcome.release.package.name, sha256: outcome.release.package.digest }],
        }
      : null,
    changes: changesOf(plan),
    result: outcome.result === "complete" ? "verified" : "failed",
    failures,
    exception: null,
    reason: `install ${outcome.release.id}`,
  };
}
