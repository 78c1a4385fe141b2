import type { Catalogue, ModuleTree } from "./package-details.ts";

/*
 * Reads of a package source kept for one run of read-only commands (status, drift and plans of
 * several environments): environments that promote from the same source read its catalogue, its
 * version and each object's tree once between them. Never kept across writes: an apply's verify
 * must read what the install left.
 */

/** One source's reads, each started once and shared while in flight. */
export interface InstanceReads {
  catalogue?: Promise<Catalogue>;
  version?: Promise<{ version?: string }>;
  /** Metadata trees by lower-case GUID of the module. */
  trees: Map<string, Promise<ModuleTree>>;
}

export interface SharedReads {
  /** The reads of the environment named `environment`, made on first use. */
  of(environment: string): InstanceReads;
}

/** A per-run cache of package sources' reads, by environment name. */
export function sharedReads(): SharedReads {
  const byEnvironment = new Map<string, InstanceReads>();
  return {
    of(environment) {
      let reads = byEnvironment.get(environment);
      if (!reads) {
        reads = { trees: new Map() };
        byEnvironment.set(environment, reads);
      }
      return reads;
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
  return started;
}
