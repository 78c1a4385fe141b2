import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "pino";
import { createClient, type PlatformClient } from "../client/client.ts";
import { clientOptionsOf } from "../compose/connections.ts";
import type { Emulator, FaultSpec } from "../emulator/index.ts";
import { assertPrivateFile, privateDir } from "../io/private-dir.ts";
import type { Endpoint, EnvironmentConfig } from "../manifest/index.ts";
import { ExitError } from "./errors.ts";
import { ensureStateDir, insideStateDir } from "./state-dir.ts";

/*
 * Opens an environment: a client for a real instance, or, for `embedded:<seed>`, an emulator started
 * in-process on a free loopback port with a client pointed at it. Embedded emulators are shared by
 * the environments of one run that name the same data file.
 */

export interface OpenEnvironment {
  name: string;
  client: PlatformClient;
  /** The in-process emulator, for embedded environments. */
  emulator?: Emulator;
}

export interface Connections {
  open(config: EnvironmentConfig): Promise<OpenEnvironment>;
  /**
   * Starts closing what is open (the logouts), without waiting: for a command that is done with
   * its instances before it is done (a plan, once read). `closeAll` waits for it.
   */
  closeSoon(): void;
  closeAll(): Promise<void>;
}

export interface ConnectOptions {
  logger: Logger;
  /** How often a long wait is reported (default 10 s; tests pass less). */
  waitNoticeMs?: number;
  /** The repository's state folder (`.egp`): an embedded data file in it creates it with its `.gitignore`. */
  stateDir?: string;
}

/** An embedded url's `faults=`, read by the parser `egp emulator --faults` uses; a bad one is the file's error. */
function faultsOf(
  config: EnvironmentConfig,
  spec: string,
  parse: (text: string, label: string) => FaultSpec,
): FaultSpec {
  try {
    return parse(spec, `${config.file}: url: faults=`);
  } catch (error) {
    throw new ExitError("EGP_MANIFEST_INVALID", (error as Error).message, { cause: error });
  }
}

export function connections(options: ConnectOptions): Connections {
  const opened = new Map<string, Promise<OpenEnvironment>>();
  const emulators = new Map<string, Promise<Emulator>>();

  const embedded = (config: EnvironmentConfig, endpoint: Extract<Endpoint, { kind: "embedded" }>) => {
    const { seed, dataFile } = endpoint;
    const key = dataFile ?? `memory:${config.name}`;
    let started = emulators.get(key);
    if (!started) {
      if (dataFile) {
        const { stateDir } = options;
        if (stateDir && insideStateDir(stateDir, dataFile)) {
          // Password hashes: a private folder, and no file of it reached through a link.
          ensureStateDir(stateDir);
          privateDir(stateDir, dirname(dataFile));
          for (const file of [dataFile, `${dataFile}-wal`, `${dataFile}-shm`, `${dataFile}-journal`])
            assertPrivateFile(file);
        } else mkdirSync(dirname(dataFile), { recursive: true });
      }
      // Loaded only for embedded environments: a run against real instances never loads fastify.
      started = import("../emulator/index.ts").then(({ startEmulator, parseFaultSpec }) =>
        startEmulator({
          port: 0,
          seed,
          dataFile,
          ...(endpoint.profile ? { profile: endpoint.profile } : {}),
          ...(endpoint.faults ? { faults: faultsOf(config, endpoint.faults, parseFaultSpec) } : {}),
          instance: config.instance,
          adminPassword: config.auth.password.reveal(),
        }),
      );
      emulators.set(key, started);
    }
    return started;
  };

  const openOne = async (config: EnvironmentConfig): Promise<OpenEnvironment> => {
    const emulator =
      config.endpoint.kind === "embedded" ? await embedded(config, config.endpoint) : undefined;
    const url = emulator ? emulator.url : config.endpoint.kind === "http" ? config.endpoint.url : "";
    const client = createClient({
      ...clientOptionsOf(config),
      url,
      ...(emulator ? { scheme: "Platform", limits: { ...config.limits, requestsPerSecond: 0 } } : {}),
      logger: options.logger,
      ...(options.waitNoticeMs ? { waitNoticeMs: options.waitNoticeMs } : {}),
      // A warning, so that it shows at the default log level, on stderr (stdout stays the output).
      onWait: ({ what, seconds }) =>
        options.logger.warn(
          { env: config.name, what, seconds },
          `still waiting for ${config.name} (${what}, ${seconds} s)`,
        ),
    });
    return { name: config.name, client, ...(emulator ? { emulator } : {}) };
  };

  /** Logs out of every instance opened so far and stops the embedded emulators; what opens later is new. */
  const closeOpened = async () => {
    const clients = [...opened.values()];
    const servers = [...emulators.values()];
    opened.clear();
    emulators.clear();
    const environments = await Promise.allSettled(clients);
    // Every instance's logout at once: one round trip at the end of a run, not one per instance.
    await Promise.allSettled(
      environments.map(async (result) => {
        if (result.status !== "fulfilled") return;
        const { name, client } = result.value;
        await client.close();
        // One line per environment, logouts included: what a run cost the instance (and what the
        // benchmarks count, without tracing every exchange).
        const { requests, retries, logins } = client.stats();
        options.logger.debug({ env: name, requests, retries, logins }, "requests made");
      }),
    );
    const started = await Promise.allSettled(servers);
    for (const result of started) if (result.status === "fulfilled") await result.value.close();
  };
  let closing: Promise<void> | undefined;

  return {
    open(config) {
      let environment = opened.get(config.name);
      if (!environment) {
        environment = openOne(config);
        opened.set(config.name, environment);
      }
      return environment;
    },
    closeSoon() {
      closing ??= closeOpened();
    },
    async closeAll() {
      await closing;
      closing = undefined;
      await closeOpened();
    },
  };
}
