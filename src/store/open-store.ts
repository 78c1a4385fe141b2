import { isAbsolute, resolve } from "node:path";
import { FolderStore } from "./folder-store.ts";
import { OciStore, parseOciReference, printableAddress } from "./oci-store.ts";
import { Keyring, SignedStore } from "./signing.ts";
import type { ReleaseStore } from "./store.ts";
import { StoreError } from "./store-error.ts";

/** The store where egp.yaml names none: on this machine only, like Terraform's local backend. */
export const DEFAULT_STORE = ".egp/store";

export interface StoreSpec {
  /** A folder (relative to the repository root, or absolute) or `oci://host[:port]/repository`. */
  store?: string;
  plainHttp?: boolean;
  /** Public keys (`ed25519:…`) whose signatures on records are believed. */
  trustedKeys?: readonly string[];
  /** An oci:// store's settle time in ms (`releases.settle`; OciStoreOptions.settleMs). */
  settleMs?: number;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** What is wrong with a `releases.store` value, or undefined when a store can be opened from it. */
export function checkStoreSpec(spec: StoreSpec): string | undefined {
  const value = spec.store;
  if (value === undefined) return undefined;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*@/.test(value)) {
    return "holds a user or password: give them in EGP_STORE_USERNAME and EGP_STORE_PASSWORD instead";
  }
  if (value.startsWith("oci://")) {
    return parseOciReference(value)
      ? undefined
      : "expected oci://host[:port]/repository (a lower-case repository name)";
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) {
    return "expected a folder path or oci://host[:port]/repository (for HTTP, oci:// with plainHttp: true)";
  }
  if (value.trim() !== value || value === "")
    return "expected a folder path without leading or trailing spaces";
  return undefined;
}

/**
 * Whether the store is this machine's alone: the default `.egp/store` (named or not). Every other
 * folder (a share, a synced folder, a path in the repository) and every registry is shared.
 */
export function isMachineLocal(spec: StoreSpec, root: string): boolean {
  if (spec.store === undefined) return true;
  if (spec.store.startsWith("oci://")) return false;
  const path = isAbsolute(spec.store) ? spec.store : resolve(root, spec.store);
  return resolve(path) === resolve(root, DEFAULT_STORE);
}

/**
 * The store egp.yaml's `releases` names, from the repository at `root`. An OCI registry's user and
 * password come from EGP_STORE_USERNAME and EGP_STORE_PASSWORD, never from a file.
 */
export function openStore(spec: StoreSpec, root: string, env: Environment = process.env): ReleaseStore {
  const problem = checkStoreSpec(spec);
  if (problem) {
    throw new StoreError(
      "EGP_STORE_LOCATION",
      `releases.store ${printableAddress(spec.store ?? "")}: ${problem}`,
    );
  }
  const value = spec.store ?? DEFAULT_STORE;
  // The default store is this machine's, as the rest of `.egp/` is; a folder named in egp.yaml is
  // shared on purpose (a mounted share), and keeps the umask's modes.
  if (!value.startsWith("oci://"))
    return new FolderStore(isAbsolute(value) ? value : resolve(root, value), {
      private: isMachineLocal(spec, root),
    });
  const username = env.EGP_STORE_USERNAME || undefined;
  const password = env.EGP_STORE_PASSWORD || undefined;
  if ((username === undefined) !== (password === undefined)) {
    throw new StoreError(
      "EGP_STORE_LOCATION",
      `${username ? "EGP_STORE_USERNAME" : "EGP_STORE_PASSWORD"} is set without ${username ? "EGP_STORE_PASSWORD" : "EGP_STORE_USERNAME"}: set both, or neither for a registry that allows anonymous access`,
    );
  }
  return new OciStore({
    reference: value,
    ...(spec.plainHttp === undefined ? {} : { plainHttp: spec.plainHttp }),
    ...(spec.settleMs === undefined ? {} : { settleMs: spec.settleMs }),
    ...(username && password ? { credentials: { username, password } } : {}),
  });
}

/**
 * `openStore`, signing the records it writes (signing.ts): with EGP_SIGNING_KEY when set, else with
 * the user's local key; it says whether a record read back was signed by a key `trustedKeys` lists.
 * A shared store takes EGP_SIGNING_KEY to be written to (`SignedStore.assertCanSign`), never to be read.
 */
export function openSignedStore(spec: StoreSpec, root: string, env: Environment = process.env): SignedStore {
  const keyring = new Keyring({
    ...(spec.trustedKeys ? { trustedKeys: spec.trustedKeys } : {}),
    ...(env.EGP_SIGNING_KEY ? { signingKey: env.EGP_SIGNING_KEY } : {}),
  });
  return new SignedStore(openStore(spec, root, env), keyring, { shared: !isMachineLocal(spec, root) });
}
