import { generateSigningKey } from "../../src/store/signing.ts";

/*
 * The key a test's shared release store is signed with, as a team sets one up before its first
 * record (`egp keys`, docs/security.md): its private half as EGP_SIGNING_KEY, its public half in
 * egp.yaml's `releases.trustedKeys`.
 */

export const TEST_KEYS = generateSigningKey();

/** The variable a CLI child signs with. */
export const SIGNING_ENV = { EGP_SIGNING_KEY: TEST_KEYS.privateKey };

/** egp.yaml naming `store` (a folder or an oci:// address) and trusting TEST_KEYS. */
export function egpYamlFor(store: string): string {
  return `releases:\n  store: ${JSON.stringify(store)}\n  trustedKeys: [ "${TEST_KEYS.publicKey}" ]\n`;
}
