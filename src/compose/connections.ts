import { createClient, type PlatformClient } from "../client/client.ts";
import { ClientOptionsError } from "../client/errors.ts";
import type { ClientOptionsInput } from "../client/options.ts";
import { REDACTED } from "../client/redact.ts";
import type { EnvironmentConfig } from "../manifest/index.ts";
import type { OpenEnvironment } from "./plan-environment.ts";

/** What an environment file says about reaching its instance, as client options (the url aside). */
export function clientOptionsOf(config: EnvironmentConfig): Omit<ClientOptionsInput, "url"> {
  const sensitive = (config.sensitive ?? []).map((value) => value.reveal());
  return {
    name: config.name,
    instance: config.instance,
    username: config.auth.username,
    domain: config.auth.domain,
    password: config.auth.password.reveal(),
    sensitive,
    ...(config.endpoint.kind === "http" && config.endpoint.written !== undefined
      ? { shownUrl: REDACTED }
      : {}),
    scheme: config.auth.scheme,
    tls: { caFile: config.tls.caFile, insecure: config.tls.insecure },
    limits: config.limits,
    timeouts: config.timeouts,
  };
}

export interface HttpConnections {
  /** One client per environment name, made on first use. */
  open: OpenEnvironment;
  /** Logs every opened client out. */
  close(): Promise<void>;
}

/**
 * Connections for a library caller: environments reached over HTTP (`url:`), each opened once.
 * An embedded environment needs an emulator started for it, which only the CLI does.
 */
export function httpConnections(extra: Partial<ClientOptionsInput> = {}): HttpConnections {
  const opened = new Map<string, PlatformClient>();
  return {
    async open(config) {
      const known = opened.get(config.name);
      if (known) return known;
      if (config.endpoint.kind !== "http")
        throw new ClientOptionsError([
          `${config.name}: an embedded environment is opened by the egp CLI only`,
        ]);
      const client = createClient({ ...clientOptionsOf(config), ...extra, url: config.endpoint.url });
      opened.set(config.name, client);
      return client;
    },
    async close() {
      await Promise.allSettled([...opened.values()].map((client) => client.close()));
      opened.clear();
    },
  };
}
