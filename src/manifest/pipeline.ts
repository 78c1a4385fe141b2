import { basename } from "node:path";
import type { Repository } from "./load.ts";
import { yaml } from "./yaml-source.ts";

/*
 * Where each environment sits in the pipeline, read from its file as written: `packagesFrom`,
 * `release` and `requiresVerifiedOn`, without substituting variables or validating the rest, so
 * that views of the pipeline (status, release list) keep their order where a secret is not set or
 * another field is wrong.
 */

export interface PipelinePlace {
  name: string;
  packagesFrom?: string;
  release?: string;
  requiresVerifiedOn: string[];
  /** The environments it comes after: its `packagesFrom`, then its `requiresVerifiedOn`. */
  upstream: string[];
}

function placeOf(name: string, text: string): PipelinePlace {
  let document: unknown;
  try {
    document = yaml().parse(text);
  } catch {
    document = undefined;
  }
  const fields = (typeof document === "object" && document !== null ? document : {}) as Record<
    string,
    unknown
  >;
  const word = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const packagesFrom = word(fields.packagesFrom);
  const release = word(fields.release);
  const requiresVerifiedOn = Array.isArray(fields.requiresVerifiedOn)
    ? fields.requiresVerifiedOn.filter((v): v is string => typeof v === "string")
    : [];
  return {
    name,
    ...(packagesFrom ? { packagesFrom } : {}),
    ...(release ? { release } : {}),
    requiresVerifiedOn,
    upstream: [...(packagesFrom ? [packagesFrom] : []), ...requiresVerifiedOn],
  };
}

/** Every environment file's place in the pipeline, in the repository's order (by path). */
export function pipelinePlaces(repository: Pick<Repository, "environments">): PipelinePlace[] {
  return repository.environments.map((file) => placeOf(basename(file.path, ".yaml"), file.text));
}
