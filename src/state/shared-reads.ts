import type { Catalogue, ModuleTree } from "./package-details.ts";

/*
 * Reads of instances' catalogues, versions and metadata trees kept for one run, by environment:
 * plans of several environments read a shared package source once (status, drift), and an apply's
 * steps and final check take what its plan or its verify read. Never kept across a write that may
 * change them: whoever writes `forget`s first, and a check after a write reads afresh, then `keep`s.
 */

/** One instance's reads, each started once and shared while in flight; a failed one is not kept. */
export interface InstanceReads {
  catalogue?: Promise<Catalogue>;
  version?: Promise<{ version?: string }>;
  /** Metadata trees by lower-case GUID of the module. */
  trees: Map<string, Promise<ModuleTree>>;
}

export interface SharedReads {
  /** The reads of the environment named `environment`, made on first use. */
  of(environment: string): InstanceReads;
  /** Drops the reads of `environment`, its version aside: called before and after a write that may change them. */
  forget(environment: string): void;
  /**
   * Adds `reads`, made afresh after a write, to those of `environment`, unless it was forgotten
   * since `since` (what `of` gave when they started): they may then predate a later write.
   */
  keep(environment: string, reads: InstanceReads, since: InstanceReads): boolean;
}

/** An instance's reads kept by nobody yet (a check's, before it `keep`s them). */
export function instanceReads(): InstanceReads {
  return { trees: new Map() };
}

/** A per-run cache of instances' reads, by environment name. */
export function sharedReads(): SharedReads {
  const byEnvironment = new Map<string, InstanceReads>();
  const of = (environment: string) => {
    let reads = byEnvironment.get(environment);
    if (!reads) {
      reads = instanceReads();
      byEnvironment.set(environment, reads);
    }
    return reads;
  };
  return {
    of,
    forget(environment) {
      // The platform's release stays: no write of egp's changes it.
      const version = byEnvironment.get(environment)?.version;
      byEnvironment.set(environment, { trees: new Map(), ...(version ? { version } : {}) });
    },
    keep(environment, reads, since) {
      const current = of(environment);
      if (current !== since) return false;
      current.catalogue ??= reads.catalogue;
      current.version ??= reads.version;
      for (const [guid, tree] of reads.trees) current.trees.set(guid, tree);
      return true;
    },
  };
}

type Single = "catalogue" | "version";

/** `start()`, or (with `reads`) the run's earlier call of it for the same instance. */
export function readOnce<K extends Single>(
  reads: InstanceReads | undefined,
  key: K,
  start: () => NonNullable<InstanceReads[K]>,
): NonNullable<InstanceReads[K]> {
  if (!reads) return start();
  const known = reads[key];
  if (known) return known as NonNullable<InstanceReads[K]>;
  const started = start();
  reads[key] = started;
  // A read that failed is made again by whoever asks next (a plan tried again after a fault).
  started.catch(() => {
    if (reads[key] === started) delete reads[key];
  });
  return started;
}

/** The tree of `guid` by `start()`, or (with `reads`) the run's earlier read of it. */
export function treeOnce(
  reads: InstanceReads | undefined,
  guid: string,
  start: () => Promise<ModuleTree>,
): Promise<ModuleTree> {
  if (!reads) return start();
  const known = reads.trees.get(guid);
  if (known) return known;
  const started = start();
  reads.trees.set(guid, started);
  started.catch(() => {
    if (reads.trees.get(guid) === started) reads.trees.delete(guid);
  });
  return started;
}
