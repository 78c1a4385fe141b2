import { Caller } from "./caller.ts";
import { RateLimiter, Semaphore } from "./limits.ts";
import { createClientLog } from "./logger.ts";
import type { ClientMachinery } from "./machinery.ts";
import { type ClientOptionsInput, parseClientOptions } from "./options.ts";
import { type BasePath, Paths } from "./paths.ts";
import { Scrubber } from "./redact.ts";
import { type AttachmentsResource, attachmentsResource } from "./resources/attachments.ts";
import { type ContentResource, contentResource } from "./resources/content.ts";
import { type ContentApiResource, contentApiResource } from "./resources/content-api.ts";
import { type GroupsResource, groupsResource } from "./resources/groups.ts";
import { type MetadataResource, metadataResource } from "./resources/metadata.ts";
import { type PackagesResource, packagesResource } from "./resources/packages.ts";
import { type RolesResource, rolesResource } from "./resources/roles.ts";
import { logIn, logOut, type SecurityResource, securityResource } from "./resources/security.ts";
import {
  type SecurityParametersResource,
  securityParametersResource,
} from "./resources/security-parameters.ts";
import { type UsersResource, usersResource } from "./resources/users.ts";
import { type ValuesListsResource, valuesListsResource } from "./resources/values-lists.ts";
import { type WorkflowResource, workflowResource } from "./resources/workflow.ts";
import { Session } from "./session.ts";
import { type ClientStats, StatsRecorder } from "./stats.ts";
import { createTransport } from "./transport.ts";
import { type EndWait, Waits } from "./waits.ts";

export interface PlatformClient {
  readonly security: SecurityResource;
  readonly users: UsersResource;
  readonly securityParameters: SecurityParametersResource;
  readonly metadata: MetadataResource;
  readonly packages: PackagesResource;
  readonly content: ContentResource;
  readonly attachments: AttachmentsResource;
  readonly workflow: WorkflowResource;
  readonly groups: GroupsResource;
  readonly roles: RolesResource;
  readonly valuesLists: ValuesListsResource;
  /** The Content API (OData), beyond the interface description; egp's own jobs do not use it. */
  readonly contentApi: ContentApiResource;
  /** Request counts so far (a copy). */
  stats(): ClientStats;
  /** The prefixes discovered so far; undefined until the first call settles them. */
  paths(): { base: BasePath | undefined; apiCore: string | undefined };
  /**
   * Marks a wait of the caller's own (a package job): `onWait` hears about it every
   * `waitNoticeMs` until the returned function is called.
   */
  waiting(what: string): EndWait;
  /** Logs out and releases connections. Never throws, also when the session has already ended. */
  close(): Promise<void>;
}

/**
 * A client for one instance. Nothing is sent until the first call, which logs in; concurrent first
 * calls share that login. `machinery`: plain variants of its speed machinery, for the benchmarks.
 */
export function createClient(input: ClientOptionsInput, machinery: ClientMachinery = {}): PlatformClient {
  const options = parseClientOptions(input);
  const scrubber = new Scrubber([options.password, ...options.sensitive]);
  const log = createClientLog(options.logger, scrubber);
  if (options.tls.insecure) {
    log.warn(
      { url: options.url },
      "TLS certificate verification is off (insecure): anyone on the path can read the session. Use tls.caFile instead.",
    );
  }
  const stats = new StatsRecorder(options.onRequest);
  const paths = new Paths(options.basePath);
  const transport = createTransport(options);
  const waits = new Waits(options.onWait, options.waitNoticeMs);
  const caller = new Caller({
    options,
    transport,
    paths,
    scrubber,
    log,
    stats,
    semaphore: new Semaphore(options.limits.concurrency),
    limiter: new RateLimiter(options.limits.requestsPerSecond),
    waits,
    machinery,
  });
  const session = new Session(() => logIn({ caller, options, scrubber, stats }));
  caller.useSession(session);

  let closed: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    const token = await session.release();
    if (token) {
      await logOut(caller, token, token).catch((error: unknown) => {
        log.debug({ error }, "logout failed; the session will idle out");
      });
    }
    caller.markClosed();
    await transport.close().catch(() => undefined);
  };

  return Object.freeze({
    security: securityResource({ caller, options, scrubber, stats, session }),
    users: usersResource(caller, scrubber),
    securityParameters: securityParametersResource(caller),
    metadata: metadataResource(caller),
    packages: packagesResource(caller),
    content: contentResource(caller),
    attachments: attachmentsResource(caller),
    workflow: workflowResource(caller),
    groups: groupsResource(caller),
    roles: rolesResource(caller),
    valuesLists: valuesListsResource(caller),
    contentApi: contentApiResource(caller),
    stats: () => stats.snapshot(),
    waiting: (what: string) => waits.start(what),
    paths: () => ({ base: paths.basePath, apiCore: paths.apiCorePath }),
    close: () => {
      closed ??= close();
      return closed;
    },
  });
}
