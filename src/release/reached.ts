import { createHash } from "node:crypto";
import { connect } from "node:tls";
import type { PlatformClient } from "../client/client.ts";
import type { EnvironmentConfig } from "../manifest/index.ts";
import type { ReleaseStore } from "../store/index.ts";
// The module itself, not the store's index: plan loads this, and the index pulls in every store.
import { keyedDigestOf } from "../store/signing.ts";

/*
 * What a verification reached, named so that it can be compared and never read: a keyed digest
 * (signing.ts `keyedDigest`) of the URL the environment resolved to (its `${VAR}`s substituted),
 * the InstanceName the instance's version call answers and, over https, the sha256 of the server
 * certificate's public key. A verification made with test's `${VAR}` pointed at a throwaway
 * instance names that instance; the `requiresVerifiedOn` gate computes the digest of what test's
 * file reaches now and believes only a verification whose digest matches.
 */

const PURPOSE = "verified instance";
const TLS_TIMEOUT_MS = 10_000;

/** The sha256 of the public key the https server at `url` presents. */
function serverKey(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: url.hostname,
      port: Number(url.port || 443),
      servername: url.hostname,
      // Read only to name the key: the client's own connection has checked the certificate.
      rejectUnauthorized: false,
      timeout: TLS_TIMEOUT_MS,
    });
    socket.once("secureConnect", () => {
      const key = socket.getPeerCertificate()?.pubkey;
      socket.end();
      if (key) resolve(createHash("sha256").update(key).digest("hex"));
      else reject(new Error(`${url.host} presented no certificate key`));
    });
    socket.once("timeout", () => socket.destroy(new Error(`${url.host} did not finish the TLS handshake`)));
    socket.once("error", reject);
  });
}

/**
 * The keyed digest of the instance `environment` reaches now; undefined for a store that signs
 * nothing. Throws when the instance does not answer.
 */
export async function reachedDigest(
  store: ReleaseStore,
  environment: EnvironmentConfig,
  open: (config: EnvironmentConfig) => Promise<PlatformClient>,
): Promise<string | undefined> {
  const { endpoint } = environment;
  const url = endpoint.kind === "http" ? endpoint.url : `embedded:${endpoint.seed}`;
  const client = await open(environment);
  const { InstanceName } = await client.metadata.version();
  const parsed = endpoint.kind === "http" ? new URL(endpoint.url) : undefined;
  const key = parsed?.protocol === "https:" ? await serverKey(parsed) : "";
  const text = `${url}\0${InstanceName ?? environment.instance ?? ""}\0${key}`;
  return keyedDigestOf(store, text, PURPOSE);
}
