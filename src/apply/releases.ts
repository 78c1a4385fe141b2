import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { EgpError, type ErrorCode } from "../errors/index.ts";
import { assertPrivateFile, PRIVATE_FILE_MODE, privateDir } from "../io/private-dir.ts";

/*
 * A release record, `.egp/releases/<env>/<id>.json`, is written by a promotion's install step just
 * before it asks for the install: what was installed, the snapshot taken of the target before it
 * (kept under .egp/artifacts by digest) with the fingerprint of each part it held, and the objects
 * the install creates. This is the local copy: the release store's history (./history.ts) is what
 * `egp history` lists and `egp rollback` undoes.
 */

/** A file's sha256, as the artifact cache names it: never a path. */
export const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "expected a sha256: 64 lower-case hex characters");

const Packed = z.object({
  guid: z.string(),
  type: z.enum(["Application", "SubForm", "GlobalReport"]),
  name: z.string(),
});

export const ReleaseRecord = z.object({
  formatVersion: z.literal(1),
  /** 12 hex digits, from the environment, the package and the plan that installed it. */
  id: z.string().regex(/^[0-9a-f]{12}$/, "expected 12 lower-case hex characters"),
  environment: z.string(),
  sourceEnvironment: z.string(),
  /** The release installed (`release:` of the environment file); absent for a live promotion. */
  release: z.string().optional(),
  /** The plan that ran the install. */
  plan: z.string(),
  package: z.object({ name: z.string(), digest: Sha256 }),
  snapshot: z
    .object({
      digest: Sha256,
      takenAt: z.string(),
      /** The target's objects as the snapshot holds them: every part's fingerprint, by part key. */
      objects: z.array(Packed.extend({ parts: z.record(z.string(), z.string()) })),
    })
    .nullable(),
  /** The package uploaded to the target whose install this is: a later run waits for its job. */
  packageId: z.number().int().optional(),
  /** Objects the install creates on the target: no install can remove them again. */
  created: z.array(Packed),
  /** When the install was asked for, and when its job was seen done (null until then). */
  startedAt: z.string(),
  installedAt: z.string().nullable(),
  /** When the install was refused or its job failed: no job of it runs, so no later apply waits for it. */
  failedAt: z.string().optional(),
  /**
   * The verification's verdict on the install (stable-reads.ts): `converged`, `converged after
   * re-install` or `diverged`, and how many installs it took (each re-install a pass).
   */
  verification: z.object({ verdict: z.string(), passes: z.number().int(), at: z.string() }).optional(),
  /** Each rollback that installed this record's snapshot. */
  rollbacks: z.array(z.object({ plan: z.string(), at: z.string() })).default([]),
});
export type ReleaseRecord = z.infer<typeof ReleaseRecord>;

/** No release to roll back to, or one that can't be: a clear one-line error for the CLI. */
export class ReleaseError extends EgpError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
    this.name = "ReleaseError";
  }
}

export function releasesDir(stateDir: string, env: string): string {
  return join(stateDir, "releases", env);
}

const fileOf = (stateDir: string, env: string, id: string) => join(releasesDir(stateDir, env), `${id}.json`);

/** Written whole to a temp file, flushed, then renamed: a crash leaves the old record or the new one. */
export function writeRelease(stateDir: string, record: ReleaseRecord): void {
  const folder = releasesDir(stateDir, record.environment);
  privateDir(stateDir, folder);
  const file = fileOf(stateDir, record.environment, record.id);
  const temp = `${file}.tmp`;
  // A leftover temp file goes first: "wx" then never writes through whatever is in its place.
  rmSync(temp, { force: true });
  const fd = openSync(temp, "wx", PRIVATE_FILE_MODE);
  try {
    writeSync(fd, `${JSON.stringify(record, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}

export function readRelease(stateDir: string, env: string, id: string): ReleaseRecord | undefined {
  if (!privateDir(stateDir, releasesDir(stateDir, env), { create: false })) return undefined;
  assertPrivateFile(fileOf(stateDir, env, id));
  let text: string;
  try {
    text = readFileSync(fileOf(stateDir, env, id), "utf8");
  } catch {
    return undefined;
  }
  const unusable = (why: string) =>
    new ReleaseError(
      "EGP_RELEASE_UNUSABLE",
      `${fileOf(stateDir, env, id)} is not an install record (${why})`,
    );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw unusable("not JSON");
  }
  const parsed = ReleaseRecord.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw unusable(`${issue?.path.join(".") || "record"}: ${issue?.message}`);
  }
  if (parsed.data.id !== id || parsed.data.environment !== env)
    throw unusable(`it names install ${parsed.data.id} of ${parsed.data.environment}`);
  return parsed.data;
}

/** Records that a rollback installed the release's snapshot. */
export function markRolledBack(
  stateDir: string,
  env: string,
  id: string,
  plan: string,
  at: string,
): ReleaseRecord | undefined {
  const record = readRelease(stateDir, env, id);
  if (!record) return undefined;
  const marked = { ...record, rollbacks: [...record.rollbacks, { plan, at }] };
  writeRelease(stateDir, marked);
  return marked;
}
