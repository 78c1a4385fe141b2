import type { Kinds } from "../compose/kinds.ts";
import type { OpenEnvironment } from "../compose/plan-environment.ts";
import { openProjectStore } from "../compose/project-store.ts";
import { EgpError, type ErrorCode } from "../errors/index.ts";
import {
  type DesiredState,
  type EnvironmentConfig,
  environmentOf,
  type ManifestCache,
  readRepository,
} from "../manifest/index.ts";
import { DEFAULT_VERIFY } from "../manifest/verify-settings.ts";
import { type Plan, printable } from "../plan/index.ts";
import { assertCanSign, type ReleaseStore, verifiedKey } from "../store/index.ts";
import { distrust, trustOf } from "../store/signing.ts";
import { assertAuditWhole } from "./audit-chain.ts";
import { auditBase, instanceOf, writeAudit } from "./audit-trail.ts";
import { actorOf, assertNotFrozen } from "./freeze-gate.ts";
import { type Notice, notifierFor } from "./notify.ts";
import { planEnvironment } from "./plan.ts";
import {
  recordNotVerified,
  recordSoakVerified,
  type VerificationRecord,
  verificationState,
} from "./verified.ts";
import { runChecks } from "./verify-checks.ts";

/*
 * `egp verify --env E`: the end of a soak (`verify.soak`, verified.ts). After the soak time the
 * environment is planned twice, `verify.interval` apart, as an install's stable reads are: the
 * release's packages must show no change in either plan (every part equal to what the release
 * records), and the environment's checks of behaviour (`verify.checks`) must pass again. Then the
 * verification is recorded verified, or not verified with what changed; before it nothing is
 * recorded. A governed entry point as apply and reject are: the audit chain is checked
 * first, the record audited and the result notified.
 */

export class VerifyError extends EgpError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
    this.name = "VerifyError";
  }
}

export interface VerifyOptions {
  /** The repository: environments/, manifests/, releases/ and egp.yaml. */
  dir: string;
  env: string;
  open: OpenEnvironment;
  /** The release store (default: the one egp.yaml names). */
  store?: ReleaseStore;
  cache?: ManifestCache;
  kinds?: Kinds;
  logger?: { debug(fields: object, message: string): void };
  /** The clock the soak's end is compared with (default: now). */
  now?: () => Date;
  /** How the wait between the two plans is made (tests record it instead of sleeping). */
  sleep?: (ms: number) => Promise<void>;
  /** Where a record or a notification that could not be made is said (default: nowhere). */
  say?: (line: string) => void;
}

export interface VerifyOutcome {
  environment: string;
  release: string;
  result: "verified" | "not-verified";
  /** What the re-check found changed: the release's packages and their differing parts. */
  changed: string[];
}

const sleeping = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The environment file and the release it names; a verify of an environment without one has nothing to do. */
async function releaseOf(dir: string, env: string): Promise<{ release: string; config: EnvironmentConfig }> {
  const { state } = environmentOf(await readRepository(dir, { manifests: false }), env);
  const release = state.environment.release;
  if (!release)
    throw new VerifyError(
      "EGP_NOT_SOAKING",
      `nothing soaks on ${env}: environments/${env}.yaml runs no release (release:)`,
    );
  return { release, config: state.environment };
}

/** The environment's checks of behaviour, run again: a failed one is a change the soak found. */
async function checksChanged(options: VerifyOptions, desired: DesiredState): Promise<string[]> {
  const checks = desired.environment.verify?.checks ?? [];
  if (checks.length === 0) return [];
  const results = await runChecks(await options.open(desired.environment), checks);
  return results.filter((r) => !r.passed).map((r) => printable(`check ${r.check}: ${r.found}`));
}

/** The soaking record of the release on the environment, believed, whose soak is over. */
async function soakOver(
  store: ReleaseStore,
  env: string,
  release: string,
  now: Date,
): Promise<VerificationRecord> {
  const key = verifiedKey(release, env);
  const record = await store.getRecord(key);
  if (record === undefined)
    throw new VerifyError(
      "EGP_NOT_SOAKING",
      `nothing soaks on ${env}: release ${release} was not verified there`,
    );
  const trust = trustOf(store, key, record);
  if (!trust.trusted)
    throw new VerifyError(
      "EGP_NOT_SOAKING",
      `nothing soaks on ${env}: the store's verification of release ${release} there is not used: ${distrust(trust)}`,
    );
  const state = verificationState(record);
  if (state.state === "verified")
    throw new VerifyError(
      "EGP_NOT_SOAKING",
      `nothing soaks on ${env}: release ${release} is verified there since ${state.at}`,
    );
  if (state.state === "not-verified")
    throw new VerifyError(
      "EGP_NOT_SOAKING",
      `nothing soaks on ${env}: release ${release} is not verified there (${state.reason}); apply it again to start a new soak`,
    );
  if (now.getTime() < Date.parse(state.until))
    throw new VerifyError(
      "EGP_SOAKING",
      `release ${release} on ${env} is soaking until ${state.until}; run egp verify after it`,
    );
  return record as VerificationRecord;
}

/** The release's packages that the plan would promote, and their parts that differ. */
function changedIn(plan: Plan): string[] {
  if (plan.partial) return ["the plan was partial"];
  return plan.changes
    .filter((change) => change.action === "promote")
    .map((change) => {
      const parts = change.fields.map((f) => f.field).join(", ");
      return printable(`${change.id}${parts ? ` (${parts})` : ""}`);
    });
}

async function recheck(
  options: VerifyOptions,
  store: ReleaseStore,
): Promise<{ changed: string[]; desired: DesiredState }> {
  const plan = () =>
    planEnvironment({
      dir: options.dir,
      env: options.env,
      open: options.open,
      store,
      ...(options.cache ? { cache: options.cache } : {}),
      ...(options.kinds ? { kinds: options.kinds } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
  const first = await plan();
  const changed = changedIn(first.plan);
  if (changed.length > 0) return { changed, desired: first.desired };
  await (options.sleep ?? sleeping)(
    first.desired.environment.verify?.intervalMs ?? DEFAULT_VERIFY.intervalMs,
  );
  const second = await plan();
  const again = changedIn(second.plan);
  if (again.length > 0) return { changed: again, desired: second.desired };
  return { changed: await checksChanged(options, second.desired), desired: second.desired };
}

/** Re-checks a soaked verification and records it verified or not verified; audited and notified. */
export async function verifyEnvironment(options: VerifyOptions): Promise<VerifyOutcome> {
  const { dir, env } = options;
  const say = options.say ?? (() => undefined);
  const store = options.store ?? (await openProjectStore(dir));
  assertCanSign(store);
  await assertAuditWhole(store);
  const { release, config } = await releaseOf(dir, env);
  const now = options.now?.() ?? new Date();
  const record = await soakOver(store, env, release, now);
  // A check that writes (the record probe) respects the environment's freeze windows, as in an apply.
  if (config.verify?.checks?.some((check) => check.kind === "record"))
    await assertNotFrozen({ dir, environment: config, actor: actorOf(), now });
  const { changed, desired } = await recheck(options, store);
  // An apply that started during the re-check ended the soak; its word stands.
  const still = verificationState(await store.getRecord(verifiedKey(release, env)));
  if (still.state !== "soaking" || still.since !== record.verifiedAt)
    throw new VerifyError(
      "EGP_NOT_SOAKING",
      `the soak of release ${release} on ${env} ended during the re-check (an apply to ${env}); nothing recorded`,
    );
  const verified = changed.length === 0;
  const reason = `changed during the soak: ${changed.join("; ")}`;
  if (verified) await recordSoakVerified(store, record);
  else await recordNotVerified(store, record, reason);
  await writeAudit(
    store,
    {
      ...auditBase("verify"),
      environment: env,
      instance: instanceOf(desired.environment),
      planSha256: null,
      release: { name: release, packages: record.packages.map((p) => ({ name: p.name, sha256: p.sha256 })) },
      changes: [],
      result: verified ? "verified" : "failed",
      failures: verified ? [] : changed,
      exception: null,
      reason: verified ? null : reason,
    },
    say,
  );
  const outcome: VerifyOutcome = {
    environment: env,
    release,
    result: verified ? "verified" : "not-verified",
    changed,
  };
  await (await notifierFor(dir, say))(verifyNotice(outcome));
  return outcome;
}

/** The notice a soak's re-check ends with: `verified`, or `verification-failed` naming what changed. */
export function verifyNotice(outcome: VerifyOutcome): Notice {
  const { environment, release } = outcome;
  return outcome.result === "verified"
    ? { event: "verified", environment, release, summary: "nothing changed during the soak; verified" }
    : {
        event: "verification-failed",
        environment,
        release,
        summary: `not verified: changed during the soak: ${outcome.changed.join("; ")}`,
      };
}

/** The failure a verification that found a change ends the run with (the record is written already). */
export function verifyFailure(outcome: VerifyOutcome): VerifyError | undefined {
  if (outcome.result === "verified") return undefined;
  return new VerifyError(
    "EGP_SOAK_CHANGED",
    `release ${outcome.release} is not verified on ${outcome.environment}: changed during the soak: ${outcome.changed.join("; ")}`,
  );
}
