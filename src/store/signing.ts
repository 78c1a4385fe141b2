import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign as signBytes,
  verify as verifyBytes,
} from "node:crypto";
import stringify from "safe-stable-stringify";
import { type LocalKey, localKey } from "../io/local-key.ts";
import { stamped } from "./audit-stamp.ts";
import type { PutRecordOptions, ReleaseStore } from "./store.ts";
import { StoreError } from "./store-error.ts";

/*
 * Records that gate or undo a promotion (releases, verifications, install history) are signed when
 * written, and their signature is checked where they are used. A store is written by whoever can
 * push to it; a signature says the record was written by egp holding a key that lives outside the
 * store and the repository:
 * - `EGP_SIGNING_KEY`, an Ed25519 private key (`egp keys` makes one; CI keeps it as a secret), whose
 *   public key egp.yaml lists under `releases.trustedKeys`;
 * - without it, the per-user local key (HMAC), which only this user on this machine can check: a
 *   store on one machine works out of the box; a shared one needs a configured key.
 * What is signed is the record's canonical JSON without its signature, after its store key, so that
 * a record can't be moved to another key (a verification of test passed off as one of prod).
 */

export const SIGNATURE_FIELD = "signature";
const PUBLIC_PREFIX = "ed25519:";
const PUBLIC_KEY = /^ed25519:[A-Za-z0-9+/]{43}=$/;
// The DER header of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it.
const SPKI_HEADER = Buffer.from("302a300506032b6570032100", "hex");

export interface Signature {
  alg: "ed25519" | "hmac-sha256";
  /** `ed25519:<base64 public key>`, or `local:<id>` for the local key. */
  key: string;
  value: string;
}

/** Whether a record read back can be believed, and why not. */
export type Trust =
  | { trusted: true; by: string }
  | { trusted: false; why: "unsigned" | "untrusted-key" | "bad-signature"; by?: string };

/** A public key as egp.yaml lists it: `ed25519:` and the raw key in base64. */
export function isPublicKey(text: string): boolean {
  return PUBLIC_KEY.test(text);
}

function publicKeyText(key: KeyObject): string {
  const der = key.export({ type: "spki", format: "der" });
  return `${PUBLIC_PREFIX}${der.subarray(SPKI_HEADER.length).toString("base64")}`;
}

function publicKeyOf(text: string): KeyObject {
  const raw = Buffer.from(text.slice(PUBLIC_PREFIX.length), "base64");
  return createPublicKey({ key: Buffer.concat([SPKI_HEADER, raw]), format: "der", type: "spki" });
}

/** A new key pair: the private key as EGP_SIGNING_KEY takes it (base64 PKCS#8), the public as egp.yaml lists it. */
export function generateSigningKey(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKey: privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
    publicKey: publicKeyText(publicKey),
  };
}

/** EGP_SIGNING_KEY (base64 PKCS#8 DER, or PEM) → the private key; StoreError when it is not one. */
export function signingKeyOf(text: string): KeyObject {
  try {
    const key = text.includes("-----BEGIN")
      ? createPrivateKey(text)
      : createPrivateKey({ key: Buffer.from(text.trim(), "base64"), format: "der", type: "pkcs8" });
    if (key.asymmetricKeyType !== "ed25519") throw new Error(`a ${key.asymmetricKeyType} key`);
    return key;
  } catch (error) {
    throw new StoreError(
      "EGP_SIGNING_KEY_UNUSABLE",
      "EGP_SIGNING_KEY is not an Ed25519 private key (make one with 'egp keys')",
      { cause: error },
    );
  }
}

function signedBytes(storeKey: string, value: Record<string, unknown>): Buffer {
  const { [SIGNATURE_FIELD]: _omitted, ...rest } = value;
  return Buffer.from(`egp record\0${storeKey}\0${stringify(rest)}`);
}

const HMAC_PURPOSE = "store record";

/** Whether `value` is an Ed25519 signature of `bytes` by `publicKey`; a key that is no point is not. */
function verified(bytes: Buffer, publicKey: string, value: string): boolean {
  try {
    return verifyBytes(null, bytes, publicKeyOf(publicKey), Buffer.from(value, "base64"));
  } catch {
    return false;
  }
}

export interface KeyringOptions {
  /** Public keys egp.yaml trusts (`ed25519:…`). */
  trustedKeys?: readonly string[];
  /** EGP_SIGNING_KEY's value, when set. */
  signingKey?: string;
  /** The per-user local key, made on first use (tests give their own). */
  localKey?: () => LocalKey;
}

/** The keys one run signs with and trusts. */
export class Keyring {
  readonly trusted: ReadonlySet<string>;
  readonly #signing: KeyObject | undefined;
  readonly #signingPublic: string | undefined;
  readonly #local: () => LocalKey;

  constructor(options: KeyringOptions = {}) {
    this.trusted = new Set(options.trustedKeys ?? []);
    this.#signing = options.signingKey ? signingKeyOf(options.signingKey) : undefined;
    this.#signingPublic = this.#signing ? publicKeyText(createPublicKey(this.#signing)) : undefined;
    this.#local = options.localKey ?? (() => localKey());
  }

  /** Which key signs: a configured Ed25519 key, or this user's local key. */
  get signsWith(): "configured" | "local" {
    return this.#signing ? "configured" : "local";
  }

  /** Who signs, as a signature names it: the configured key's public half, or `local:<id>`. */
  get signer(): string {
    return this.#signingPublic ?? `local:${this.#local().id}`;
  }

  /** The configured key's public half (for messages): undefined with the local key. */
  get signingPublicKey(): string | undefined {
    return this.#signingPublic;
  }

  /**
   * A keyed digest (HMAC-SHA256) of `text`, under a key derived from the signing key (the configured
   * one, else the local key): who holds the key can compute it, nobody else can, and the text is
   * never stored. `purpose` keeps digests of different things apart.
   */
  keyedDigest(text: string, purpose: string): string {
    if (this.#signing) {
      const key = createHash("sha256")
        .update(`egp keyed digest\0${purpose}\0`)
        .update(this.#signing.export({ type: "pkcs8", format: "der" }))
        .digest();
      return createHmac("sha256", key).update(text).digest("hex");
    }
    return this.#local().seal(text, `egp keyed digest\0${purpose}`);
  }

  sign(storeKey: string, value: Record<string, unknown>): Record<string, unknown> {
    const bytes = signedBytes(storeKey, value);
    let signature: Signature;
    if (this.#signing && this.#signingPublic) {
      signature = {
        alg: "ed25519",
        key: this.#signingPublic,
        value: signBytes(null, bytes, this.#signing).toString("base64"),
      };
    } else {
      const local = this.#local();
      signature = { alg: "hmac-sha256", key: `local:${local.id}`, value: local.seal(bytes, HMAC_PURPOSE) };
    }
    const { [SIGNATURE_FIELD]: _old, ...rest } = value;
    return { ...rest, [SIGNATURE_FIELD]: signature };
  }

  check(storeKey: string, value: unknown): Trust {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { trusted: false, why: "unsigned" };
    const signature = (value as Record<string, unknown>)[SIGNATURE_FIELD] as Partial<Signature> | undefined;
    if (typeof signature !== "object" || signature === null || typeof signature.value !== "string")
      return { trusted: false, why: "unsigned" };
    const by = String(signature.key ?? "");
    const bytes = signedBytes(storeKey, value as Record<string, unknown>);
    if (signature.alg === "ed25519" && isPublicKey(by)) {
      if (!this.trusted.has(by) && by !== this.#signingPublic)
        return { trusted: false, why: "untrusted-key", by };
      return verified(bytes, by, signature.value)
        ? { trusted: true, by }
        : { trusted: false, why: "bad-signature", by };
    }
    if (signature.alg === "hmac-sha256" && by.startsWith("local:")) {
      const local = this.#local();
      if (by !== `local:${local.id}`) return { trusted: false, why: "untrusted-key", by };
      return local.check(bytes, signature.value, HMAC_PURPOSE)
        ? { trusted: true, by }
        : { trusted: false, why: "bad-signature", by };
    }
    return { trusted: false, why: "untrusted-key", by };
  }
}

/** Why a record is not believed, for messages. */
export function distrust(trust: Trust & { trusted: false }): string {
  if (trust.why === "unsigned") return "it is not signed";
  if (trust.why === "bad-signature") return "its signature does not match its content";
  return trust.by?.startsWith("local:")
    ? "it is signed with another machine's local key (a shared store needs EGP_SIGNING_KEY and releases.trustedKeys)"
    : "it is signed by a key egp.yaml's releases.trustedKeys does not list";
}

/**
 * A store whose records are signed as they are written; `trust` says whether one read back was
 * signed by a key this run trusts. Reads return the record as stored, its signature included.
 */
export class SignedStore implements ReleaseStore {
  readonly location: string;
  readonly inner: ReleaseStore;
  readonly keyring: Keyring;
  /** This machine's state folder for the repository (`.egp/`), where the audit high-water mark is kept. */
  localState: string | undefined;
  /** Whether other machines read the store (anything but the default `.egp/store`): it takes a configured key. */
  readonly shared: boolean;

  constructor(inner: ReleaseStore, keyring: Keyring, options: { shared?: boolean } = {}) {
    this.inner = inner;
    this.keyring = keyring;
    this.location = inner.location;
    this.shared = options.shared ?? false;
  }

  /**
   * Refuses a write to a shared store without EGP_SIGNING_KEY: its records would be sealed with this
   * machine's local key, which no other machine (an auditor's, a CI runner) can check.
   */
  assertCanSign(): void {
    if (!this.shared || this.keyring.signsWith === "configured") return;
    throw new StoreError(
      "EGP_SIGNING_KEY_REQUIRED",
      `the release store ${this.location} is shared, and its records must be signed with a key every machine can check: make one with 'egp keys', set EGP_SIGNING_KEY and list the public key under releases.trustedKeys in egp.yaml (docs/security.md)`,
    );
  }

  putFile(path: string) {
    return this.inner.putFile(path);
  }
  getFile(digest: string, path: string) {
    return this.inner.getFile(digest, path);
  }
  hasFile(digest: string) {
    return this.inner.hasFile(digest);
  }
  async putRecord(key: string, value: unknown, options?: PutRecordOptions) {
    this.assertCanSign();
    const record = (await stamped(this.inner, key, value)) as Record<string, unknown>;
    return this.inner.putRecord(key, this.keyring.sign(key, record), options);
  }
  getRecord(key: string) {
    return this.inner.getRecord(key);
  }
  listRecords(prefix: string) {
    return this.inner.listRecords(prefix);
  }
  async close() {
    await this.inner.close?.();
  }
}

/** Refuses, before any write, a run that would write records to a shared store it can't sign for (`SignedStore.assertCanSign`). */
export function assertCanSign(store: ReleaseStore): void {
  if (store instanceof SignedStore) store.assertCanSign();
}

/** Whether a record read from `store` is signed by a key it trusts; a store that signs nothing trusts nothing. */
export function trustOf(store: ReleaseStore, key: string, value: unknown): Trust {
  return store instanceof SignedStore ? store.keyring.check(key, value) : { trusted: false, why: "unsigned" };
}

/** Who signs what this store writes (`Keyring.signer`); undefined for a store that signs nothing. */
export function signerOf(store: ReleaseStore): string | undefined {
  return store instanceof SignedStore ? store.keyring.signer : undefined;
}

/** `Keyring.keyedDigest` under the store's keys; undefined for a store that signs nothing. */
export function keyedDigestOf(store: ReleaseStore, text: string, purpose: string): string | undefined {
  return store instanceof SignedStore ? store.keyring.keyedDigest(text, purpose) : undefined;
}

/** The record without its signature, as the code that reads it knows it. */
export function withoutSignature(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const { [SIGNATURE_FIELD]: _omitted, ...rest } = value as Record<string, unknown>;
  return rest;
}
