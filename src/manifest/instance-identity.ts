import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseYamlFile } from "./yaml-source.ts";

/*
 * The instance an environment file names, as one hash of its `url` and `instance` as written (before
 * `${VAR}` substitution, so that a gate can compute it without the other environment's secrets). A
 * verification records it, and `requiresVerifiedOn` holds only for a verification of the instance the
 * environment's file names now: pointing the file elsewhere for one apply verifies that other instance.
 */

export function instanceIdentity(url: string, instance: string | undefined): string {
  return createHash("sha256")
    .update(`egp instance\0${url}\0${instance ?? "Default"}`)
    .digest("hex");
}

/** The identity of an environment document's value, or undefined when it names no url. */
export function instanceIdentityOfDocument(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { url, instance } = value as { url?: unknown; instance?: unknown };
  if (typeof url !== "string") return undefined;
  return instanceIdentity(url, typeof instance === "string" ? instance : undefined);
}

/** The identity of the instance `environments/<env>.yaml` under `dir` names; undefined without the file. */
export async function instanceIdentityOf(dir: string, env: string): Promise<string | undefined> {
  const path = `environments/${env}.yaml`;
  let text: string;
  try {
    text = await readFile(join(dir, path), "utf8");
  } catch {
    return undefined;
  }
  return instanceIdentityOfDocument(parseYamlFile(path, text).documents[0]?.value);
}
