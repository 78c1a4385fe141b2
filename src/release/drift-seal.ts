import { createHmac, hkdfSync } from "node:crypto";
import { signingKeyOf } from "../store/signing.ts";
import type { Seal } from "./drift-finding.ts";

/*
 * The key drift hashes sensitive values under. An acknowledgement is written on one machine and
 * matched on another (a laptop, then CI), so the key must be one the whole team's runs share: the
 * release store's signing key, EGP_SIGNING_KEY, never this machine's local key. It is not used raw:
 * HKDF derives a key for this one purpose, so a value hash can never stand in for a signature.
 */

const PURPOSE = "egp drift value hash";

/** The seal of drift's sensitive value hashes under `signingKey` (EGP_SIGNING_KEY); none without it. */
export function driftSealOf(signingKey: string | undefined): Seal | undefined {
  if (!signingKey) return undefined;
  const secret = signingKeyOf(signingKey).export({ type: "pkcs8", format: "der" });
  const key = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), PURPOSE, 32));
  return (text) => createHmac("sha256", key).update(text).digest("hex");
}
