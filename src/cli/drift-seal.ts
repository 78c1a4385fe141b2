import { driftSealOf } from "../release/drift-seal.ts";

/** Drift's key for sensitive values from EGP_SIGNING_KEY, as drift and status both match acknowledgements with it. */
export function driftSealOption() {
  const seal = driftSealOf(process.env.EGP_SIGNING_KEY);
  return seal ? { seal } : {};
}
