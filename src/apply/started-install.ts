import { setTimeout as delay } from "node:timers/promises";
import type { PlatformClient } from "../client/client.ts";
import { notOffered, PlatformError } from "../client/errors.ts";
import type { EnvironmentConfig } from "../manifest/index.ts";
import { readPackageParts } from "../state/index.ts";
import type { ReleaseStore } from "../store/index.ts";
import { ApplyError } from "./errors.ts";
import { listHistory, publishInstall } from "./history.ts";
import { poll } from "./poll.ts";
import { type ReleaseRecord, writeRelease } from "./releases.ts";

/*
 * An install is asked for after its record is written, and the record is marked installed once its
 * job is seen done. A record still unmarked, younger than the instance's job time, is an install a
 * killed run may have left running: a plan made now would read the target halfway and install again.
 * So the apply waits for that job first: by its status where the instance lists packages, else until
 * the target reads differently from the snapshot (or shows an object the install creates).
 */

export interface StartedInstallOptions {
  store: ReleaseStore;
  stateDir: string;
  environment: EnvironmentConfig;
  open: (config: EnvironmentConfig) => Promise<PlatformClient>;
  say: (line: string) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The install of `env` a stopped run may have left running, if any. */
export function startedInstall(
  history: readonly ReleaseRecord[],
  jobMs: number,
  now: number,
): ReleaseRecord | undefined {
  const newest = history[0];
  if (!newest || newest.installedAt !== null || newest.failedAt || newest.rollbacks.length > 0)
    return undefined;
  const age = now - Date.parse(newest.startedAt);
  return age >= 0 && age < jobMs ? newest : undefined;
}

/** The instance answers that it has no such package: not a read it does not offer. */
const packageGone = (error: unknown) =>
  error instanceof PlatformError &&
  error.status === 404 &&
  error.validationMessages.some((m) => m.MessageKey === "PackageNotFound");

/**
 * The job's end ("Succeeded", "Failed"…; "none" when the package has no install job; "gone" when
 * the instance has no such package), undefined while it runs, or null where the instance gives no
 * job status.
 */
async function jobEnd(client: PlatformClient, packageId: number): Promise<string | undefined | null> {
  try {
    const job = (await client.packages.get(packageId)).Installs?.at(-1);
    if (!job) return "none";
    return job.Status === "Queued" || job.Status === "Running" ? undefined : job.Status;
  } catch (error) {
    if (packageGone(error)) return "gone";
    if (notOffered(error)) return null;
    throw error;
  }
}

async function targetChanged(client: PlatformClient, record: ReleaseRecord): Promise<boolean> {
  const objects = record.snapshot?.objects ?? [];
  const wanted = [...objects, ...record.created].map((o) => ({ guid: o.guid, type: o.type }));
  const live = await readPackageParts(client, wanted);
  if (record.created.some((o) => live[o.guid] !== undefined)) return true;
  return objects.some((o) =>
    Object.entries(o.parts).some(
      ([key, fingerprint]) => live[o.guid]?.parts[key]?.fingerprint !== fingerprint,
    ),
  );
}

/** Waits for an install a stopped run may have left running; true when there was one. */
export async function waitForStartedInstall(options: StartedInstallOptions): Promise<boolean> {
  const { environment, say } = options;
  const now = options.now ?? Date.now;
  const history = await listHistory(options.store, environment.name);
  const record = startedInstall(history, environment.waits.jobMs, now());
  if (!record) return false;
  const left = environment.waits.jobMs - (now() - Date.parse(record.startedAt));
  say(
    `The install of ${record.package.name} (${record.id}), asked for at ${record.startedAt}, was never seen done: ` +
      `waiting for it before planning (at most ${Math.ceil(left / 1000)} s, timeouts.job of ${environment.name}).`,
  );
  const client = await options.open(environment);
  let byJob = record.packageId !== undefined;
  const end = await poll(
    {
      what: `the install ${record.id} on ${environment.name}`,
      limitMs: left,
      limitName: `timeouts.job of ${environment.name}`,
      firstPauseMs: 250,
      sleep: options.sleep ?? ((ms) => delay(ms)),
      now,
    },
    async () => {
      if (byJob && record.packageId !== undefined) {
        const status = await jobEnd(client, record.packageId);
        if (status !== null) return status;
        byJob = false;
      }
      return (await targetChanged(client, record)) ? "Succeeded" : undefined;
    },
  ).catch((error: unknown) => {
    if (!(error instanceof ApplyError && error.code === "EGP_JOB_TIMEOUT")) throw error;
    say(
      `The install ${record.id} did not finish within timeouts.job; planning from the live state as it is.`,
    );
    return undefined;
  });
  if (end === undefined) return true;
  if (end === "gone") {
    // The instance was replaced (restored, rebuilt) since: that install can't finish there.
    say(
      `The install ${record.id} is not waited for: ${environment.name} has no package ${record.packageId} (the instance was replaced since it was asked for); planning from the live state.`,
    );
    return true;
  }
  if (end === "Succeeded") {
    // Seen done: later applies need not wait for it again, and rollback knows it ran.
    await save(options, { ...record, installedAt: new Date(now()).toISOString() });
    say(`The install ${record.id} is done; planning from the live state.`);
  } else if (end === "none") {
    say(`The install ${record.id} was never started on ${environment.name}; planning from the live state.`);
  } else {
    await save(options, { ...record, failedAt: new Date(now()).toISOString() });
    say(`The install ${record.id} ended ${end}; planning from the live state.`);
  }
  return true;
}

async function save(options: StartedInstallOptions, record: ReleaseRecord): Promise<void> {
  writeRelease(options.stateDir, record);
  await publishInstall(options.store, options.stateDir, record);
}
