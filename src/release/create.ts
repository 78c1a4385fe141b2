import { ApplyRefusedError } from "../apply/apply-plan.ts";
import type { PlatformClient } from "../client/client.ts";
import { openProjectStore } from "../compose/project-store.ts";
import {
  type EnvironmentConfig,
  environmentOf,
  type ReleaseFile,
  readRepository,
  releaseNameProblem,
  selectManifests,
} from "../manifest/index.ts";
import { narrowDesired, parseTargets } from "../plan/index.ts";
import { assertCanSign, type ReleaseStore } from "../store/index.ts";
import { assertAuditWhole } from "./audit-chain.ts";
import { auditBase, instanceOf, releaseCreateEntry, writeAudit } from "./audit-trail.ts";
import { actorOf, assertNotFrozen, FrozenError } from "./freeze-gate.ts";
import { notifierFor } from "./notify.ts";
import { adoptRelease, buildRelease } from "./release-build.ts";

/*
 * The governed `egp release create`: building a release writes to its source instance (a package is
 * created and generated there), so the source's freeze windows refuse it as they refuse an apply;
 * a refusal is audited and notified (`refused`). A release built is audited (`release-create`).
 */

export interface CreateReleaseOptions {
  /** The repository: `releases/<name>.yaml` is written there. */
  dir: string;
  /** The environment the packages are built on. */
  from: string;
  name: string;
  /** The client of an environment (as `httpConnections().open` or the CLI's connections open it). */
  open: (config: EnvironmentConfig) => Promise<PlatformClient>;
  /** The repository's state folder (`.egp`): the package files are kept there too. */
  stateDir: string;
  /** The release store (default: the one egp.yaml names). */
  store?: ReleaseStore;
  /** Only the Package documents of these files and targets, as `--manifests` and `--target` take them. */
  selection?: { manifests?: string[]; targets?: string[] };
  /** Progress and anything that could not be recorded or notified (default: nowhere). */
  say?: (line: string) => void;
  /** The clock of the freeze gate and of the release's `createdAt` (default: now). */
  now?: () => Date;
}

async function refused(
  options: CreateReleaseOptions,
  store: ReleaseStore,
  config: EnvironmentConfig,
  error: FrozenError,
) {
  const say = options.say ?? (() => undefined);
  const message = error.message.split("\n")[0] ?? "";
  await writeAudit(
    store,
    {
      ...auditBase("release-create"),
      environment: config.name,
      instance: instanceOf(config),
      planSha256: null,
      release: { name: options.name, packages: [] },
      changes: [],
      result: "refused",
      failures: [message],
      exception: null,
      reason: null,
    },
    say,
  );
  const notify = await notifierFor(options.dir, say);
  await notify({ event: "refused", environment: config.name, release: options.name, summary: message });
}

/**
 * `release create --adopt NAME`: writes `releases/NAME.yaml` from the store's record of a create
 * that could not be sure it won (release-build.ts `adoptRelease`); audited. Nothing is built.
 */
export async function adoptCreatedRelease(input: {
  dir: string;
  name: string;
  store?: ReleaseStore;
  say?: (line: string) => void;
}): Promise<{ file: string; release: ReleaseFile }> {
  const store = input.store ?? (await openProjectStore(input.dir));
  const adopted = await adoptRelease(input.dir, input.name, store);
  const { release } = adopted;
  await writeAudit(
    store,
    {
      ...auditBase("release-create"),
      environment: release.from,
      instance: null,
      planSha256: null,
      release: {
        name: release.name,
        packages: release.packages.map((p) => ({ name: p.name, sha256: p.sha256 })),
      },
      changes: [],
      result: "recorded",
      failures: [],
      exception: null,
      reason: `adopted: releases/${release.name}.yaml written from the store's record`,
    },
    input.say ?? (() => undefined),
  );
  return adopted;
}

/** Builds the release on `from` under its freeze gate, stores it and writes its file; audited. */
export async function createRelease(
  options: CreateReleaseOptions,
): Promise<{ file: string; release: ReleaseFile }> {
  const { dir, name } = options;
  const problem = releaseNameProblem(name);
  if (problem) throw new ApplyRefusedError(`release create: ${problem}`);
  const repository = selectManifests(await readRepository(dir), options.selection?.manifests);
  const { state } = environmentOf(repository, options.from, { buildPackages: true });
  const desired = narrowDesired(state, parseTargets(options.selection?.targets));
  const store = options.store ?? (await openProjectStore(dir));
  assertCanSign(store);
  await assertAuditWhole(store);
  const now = options.now?.() ?? new Date();
  await assertNotFrozen({ dir, environment: desired.environment, actor: actorOf(), now }).catch(
    async (error: unknown) => {
      if (error instanceof FrozenError) await refused(options, store, desired.environment, error);
      throw error;
    },
  );
  const built = await buildRelease({
    dir,
    name,
    desired,
    client: await options.open(desired.environment),
    store,
    stateDir: options.stateDir,
    ...(options.say ? { say: options.say } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  await writeAudit(
    store,
    releaseCreateEntry(desired.environment, built.release),
    options.say ?? (() => undefined),
  );
  return built;
}
