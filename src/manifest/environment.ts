import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { z } from "zod";
import { Duration, durationMs } from "./duration.ts";
import { ENVIRONMENT_NAME } from "./environment-name.ts";
import type { SourceLocation } from "./errors.ts";
import { type FreezeWindow, FreezeWindowDocument, normalizeFreezeWindow } from "./freeze.ts";
import {
  INSTALL_METHOD_CODES,
  INSTALL_OPTION_CODES,
  type InstallCodeOverrides,
  type InstallWords,
  TRANSLATION_OPTION_CODES,
} from "./install-codes.ts";
import type { Reporter } from "./report.ts";
import { Secret } from "./secret.ts";
import type { Variables } from "./substitute.ts";
import { VerifyDocument, type VerifySettings, verifySettingsOf } from "./verify-settings.ts";

export { durationMs };

const InstallCode = z.number().int().min(0).max(2_147_483_647).optional();
type CodesOf<Word extends string> = Record<Word, typeof InstallCode>;

const IdMap = (what: string) =>
  z
    .record(z.string().min(1), z.number().int().positive())
    .optional()
    .describe(`${what} names used by the manifests → this environment's ids.`);

export const EnvironmentDocument = z
  .strictObject({
    url: z
      .string()
      .regex(/^(https?:\/\/|embedded:)/i, "expected https://host[/path] or embedded:<seed>[?data=<file>]")
      .describe(
        "The platform's {base_url}, or embedded:<seed>[?data=<file>][&profile=foreign][&faults=<spec>] for an in-process emulator.",
      ),
    instance: z.string().min(1).optional().describe("InstanceName to log into (embedded default: Default)."),
    auth: z
      .strictObject({
        username: z.string().min(1).optional(),
        domain: z.string().optional().describe("UserDomain (default: empty)."),
        password: z.string().min(1).optional().describe(`Usually \${VAR}. Never printed.`),
        scheme: z
          .string()
          .regex(/^\S+$/, "must be one word")
          .optional()
          .describe("The word of the Authorization header (default: Platform)."),
      })
      .optional()
      .describe("Login. Required for a real instance; an embedded emulator defaults to sysadmin."),
    tls: z
      .strictObject({
        caFile: z
          .string()
          .min(1)
          .optional()
          .describe("PEM file of CAs to trust, relative to the repository."),
        insecure: z.boolean().optional().describe("Turns certificate verification off (warns)."),
      })
      .optional(),
    roles: IdMap("Role").describe(
      "Role names used by the manifests → this environment's ids. Optional where the instance lists its roles (core/system/role): without it, names are resolved by reading them, and with it, an entry the instance's list contradicts refuses the plan. Required where the instance does not answer that read.",
    ),
    groups: IdMap("Group").describe(
      "Group names used by the manifests → this environment's ids. Optional where the instance lists its groups (core/system/group): without it, names are resolved by reading them. Required where the instance does not offer that read (404, 405 or 501).",
    ),
    domains: IdMap("Domain"),
    packagesFrom: z
      .string()
      .regex(ENVIRONMENT_NAME, "expected an environment name (a file in environments/)")
      .optional()
      .describe("The environment packages are promoted from."),
    release: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,99}$/, "expected a release name (a file in releases/)")
      .optional()
      .describe("The release this environment runs: releases/<name>.yaml (instead of packagesFrom)."),
    requiresVerifiedOn: z
      .array(z.string().regex(ENVIRONMENT_NAME, "expected an environment name (a file in environments/)"))
      .optional()
      .describe(
        "Environments a release must have been applied to and verified on before it is planned here.",
      ),
    freeze: z
      .array(FreezeWindowDocument)
      .optional()
      .describe(
        "Periods in which apply is refused (EGP_FROZEN) and plan gives a notice; rollback is never frozen. A reviewed file in freeze-exceptions/ lets named actors through.",
      ),
    limits: z
      .strictObject({
        concurrency: z
          .number()
          .int()
          .min(1)
          .max(64)
          .optional()
          .describe("Requests in flight at once (default 4)."),
        requestsPerSecond: z
          .number()
          .min(0)
          .max(1000)
          .optional()
          .describe("Request rate cap (default 10); 0: no cap, for an instance that needs no protection."),
        packageBytes: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe(
            "Largest package file downloaded from this instance, in bytes (default 2 GiB = 2147483648); a larger answer is refused and nothing of it kept.",
          ),
      })
      .optional(),
    timeouts: z
      .strictObject({
        connect: Duration("Longest wait for a connection (default 10s)."),
        headers: Duration("Longest wait for the head of an answer (default 30s)."),
        request: Duration(
          "Overall deadline of one try of an API call, headers and body together (default 120s); package transfers are bound by stall instead.",
        ),
        stall: Duration(
          "Longest silence in the middle of a body, the bound of a package download or upload (default 120s).",
        ),
        job: Duration(
          "Longest wait for a package job of this instance, a generate or an install (default 1h).",
        ),
        verify: Duration(
          "Longest wait, after an install on this instance, for its objects to read as expected (default 1h).",
        ),
      })
      .optional()
      .describe("How long to wait for the instance; a wait over 10 s is reported, less often as it goes on."),
    verify: VerifyDocument,
    installCodes: z
      .strictObject({
        installMethod: z
          .strictObject({ createNew: InstallCode, createAndUpdate: InstallCode } satisfies CodesOf<
            InstallWords["method"]
          >)
          .optional()
          .describe("InstallMethod codes (assumed: createNew 1, createAndUpdate 2)."),
        installOption: z
          .strictObject({ keep: InstallCode, override: InstallCode } satisfies CodesOf<
            InstallWords["layout"]
          >)
          .optional()
          .describe("InstallOption codes (assumed: keep 1, override 2)."),
        translationOption: z
          .strictObject({ none: InstallCode, install: InstallCode } satisfies CodesOf<
            InstallWords["translations"]
          >)
          .optional()
          .describe("TranslationOption codes (assumed: none 0, install 1)."),
      })
      .optional()
      .describe(
        "The codes this instance gives the install options' words. The interface description does not give their meaning, so egp's are assumed; a code given here replaces the assumed one.",
      ),
  })
  .describe("An environment: one platform instance, named by its file name.");
export type EnvironmentDocument = z.infer<typeof EnvironmentDocument>;

/** Where the platform is: a real instance, or an emulator that the CLI starts in-process. */
export type Endpoint =
  | {
      kind: "http" /** {base_url}, without a trailing slash. */;
      url: string;
      /**
       * The url as the file writes it, when it names a variable (`${GRC_URL}`): the value is then a
       * secret, which messages show as `[redacted]` and records by this reference.
       */
      written?: string;
    }
  | {
      kind: "embedded";
      /** Emulator seed: empty, demo-dev, demo-prod or scale:…. */
      seed: string;
      /** Absolute path of the JSON snapshot that keeps its state between runs; absent: in memory. */
      dataFile?: string;
      /** `foreign`: an emulator that behaves like an instance egp has never seen. */
      profile?: "foreign";
      /** The emulator's fault spec, as `egp emulator --faults` takes it (docs/emulator.md). */
      faults?: string;
    };

export interface EnvironmentConfig {
  /** The file name without `.yaml`. */
  name: string;
  /** Repository-relative path of the environment file. */
  file: string;
  source: SourceLocation;
  endpoint: Endpoint;
  instance: string;
  /** The hash of `url` and `instance` as the file writes them (instance-identity.ts). */
  instanceId?: string;
  auth: { username: string; domain: string; password: Secret; scheme: string };
  /** `caFile` is absolute. */
  tls: { caFile?: string; insecure: boolean };
  roles: Readonly<Record<string, number>>;
  groups: Readonly<Record<string, number>>;
  /** True when the file has no `groups:` map: group names are resolved by reading the instance's groups. */
  groupsFromInstance?: boolean;
  /** True when the file has no `roles:` map: role names are resolved by reading the instance's roles. */
  rolesFromInstance?: boolean;
  domains: Readonly<Record<string, number>>;
  packagesFrom?: string;
  /** The release the environment runs (`release:`): its packages come from the store. */
  release?: string;
  /** Environments where a release must have been applied and verified first. */
  requiresVerifiedOn?: readonly string[];
  /** Periods in which apply is refused. */
  freeze?: readonly FreezeWindow[];
  limits: { concurrency: number; requestsPerSecond: number; packageBytes: number };
  /** In milliseconds, with the defaults filled in. */
  timeouts: { connectMs: number; headersMs: number; requestMs: number; bodyMs: number };
  /** How long a step on this instance waits for a package job, and for an install's objects to match; in ms. */
  waits: { jobMs: number; verifyMs: number };
  /** How an install's result is verified: stable reads, their window, re-installs (verify-settings.ts). */
  verify?: VerifySettings;
  /** The install option codes the file gives; the words it leaves out keep their assumed codes. */
  installCodes?: InstallCodeOverrides;
  /**
   * The values of the variables its file names (`url`, `auth.username`, …): the client's scrubber
   * removes them from every error and log, as it removes the password.
   */
  sensitive?: readonly Secret[];
}

export interface EnvironmentContextOptions {
  name: string;
  /** Repository root: paths in environment files are relative to it. */
  dir: string;
  knownEnvironments: ReadonlySet<string>;
  variables: Variables;
  fileExists(path: string): boolean;
}

/** The emulator's administrator, used when an embedded environment gives no auth (DESIGN §4.3). */
export const EMBEDDED_USERNAME = "sysadmin";
export const EMBEDDED_DEFAULT_PASSWORD = "Password1!";
export const DEFAULT_LIMITS = { concurrency: 4, requestsPerSecond: 10, packageBytes: 2 * 1024 ** 3 } as const;
export const DEFAULT_TIMEOUTS = {
  connectMs: 10_000,
  headersMs: 30_000,
  requestMs: 120_000,
  bodyMs: 120_000,
} as const;
/** Real instances take many minutes to generate or install a large package. */
export const DEFAULT_WAITS = { jobMs: 3_600_000, verifyMs: 3_600_000 } as const;
const MAX_TIMEOUT_MS = 24 * 3600_000;

const SEED =
  /^(empty|demo-dev|demo-prod|scale:(users|apps|parameters)=\d{1,7}(,(users|apps|parameters)=\d{1,7})*)$/;
const URL_FORMS = "expected https://host[/path] or embedded:<seed>[?data=<file>]";
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

const EMBEDDED_OPTIONS = new Set(["data", "profile", "faults"]);

function embeddedEndpoint(url: string, dir: string, report: Reporter): Endpoint | null {
  const [seed = "", query = ""] = url.slice("embedded:".length).split("?", 2);
  if (!SEED.test(seed)) {
    report.error(
      ["url"],
      "unknown emulator seed; expected empty, demo-dev, demo-prod or scale:users=N,apps=M",
    );
    return null;
  }
  const params = new URLSearchParams(query);
  for (const key of params.keys())
    if (!EMBEDDED_OPTIONS.has(key))
      report.error(
        ["url"],
        `unknown embedded option "${key}"; the options are data=<file>, profile=foreign and faults=<spec>`,
      );
  const data = params.get("data");
  if (data === "") report.error(["url"], "data= needs a file path");
  // Taken as written (a spec joins statuses with `+`, which a query would decode to a space), and
  // checked by the emulator's own parser when it starts: manifest does not load the emulator.
  const faults = query
    .split("&")
    .find((part) => part.startsWith("faults="))
    ?.slice("faults=".length);
  if (faults === "") report.error(["url"], "faults= needs a fault spec, as egp emulator --faults takes it");
  const profile = params.get("profile") ?? "default";
  if (profile !== "default" && profile !== "foreign") report.error(["url"], "profile= is default or foreign");
  const dataFile = data ? resolve(dir, data) : undefined;
  if (dataFile && !isDataFilePath(dir, dataFile))
    report.error(
      ["url"],
      `data= must name a file inside the repository's ${STATE_DIR}/ folder (for example ${STATE_DIR}/dev.json), not one of egp's own folders`,
    );
  if (report.failed()) return null;
  return {
    kind: "embedded",
    seed,
    ...(dataFile ? { dataFile } : {}),
    ...(profile === "foreign" ? { profile } : {}),
    ...(faults ? { faults } : {}),
  };
}

/** The repository's private folder, where embedded data lives (`src/cli/state-dir.ts`). */
const STATE_DIR = ".egp";
/** What egp itself keeps in it, which an emulator's data file must not take the place of. */
const EGP_OWN = new Set(["journal", "locks", "artifacts", "releases", "store", ".gitignore"]);

/**
 * Whether a resolved data file lies inside `<dir>/.egp/`, outside egp's own files: a pull request
 * must not make egp write, or read and quote, a file elsewhere. Symbolic links on the way are
 * refused when the file is opened.
 */
function isDataFilePath(dir: string, dataFile: string): boolean {
  const inside = relative(join(dir, STATE_DIR), dataFile);
  if (inside === "" || isAbsolute(inside) || inside.split(sep)[0] === "..") return false;
  return !EGP_OWN.has(inside.split(sep)[0] ?? "");
}

function httpEndpoint(url: string, report: Reporter): Endpoint | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    report.error(["url"], URL_FORMS);
    return null;
  }
  // The URL is not quoted in these messages: a misplaced credential could be in it.
  if (parsed.username || parsed.password) {
    report.error(["url"], "must not hold credentials; put them under auth");
    return null;
  }
  if (parsed.search || parsed.hash) {
    report.error(["url"], "must not have a query or a fragment");
    return null;
  }
  if (parsed.protocol === "http:" && !LOOPBACK.has(parsed.hostname))
    report.warning(["url"], "plain http: the password and session token travel unencrypted");
  return { kind: "http", url: parsed.href.replace(/\/+$/, "") };
}

function endpointOf(doc: EnvironmentDocument, dir: string, report: Reporter): Endpoint | null {
  if (/^embedded:/i.test(doc.url)) return embeddedEndpoint(doc.url, dir, report);
  return httpEndpoint(doc.url, report);
}

function authOf(
  doc: EnvironmentDocument,
  endpoint: Endpoint,
  options: EnvironmentContextOptions,
  report: Reporter,
): EnvironmentConfig["auth"] | null {
  const auth = doc.auth ?? {};
  const scheme = auth.scheme ?? "Platform";
  const domain = auth.domain ?? "";
  if (endpoint.kind === "embedded") {
    const password = auth.password ?? options.variables.EGP_EMULATOR_PASSWORD ?? EMBEDDED_DEFAULT_PASSWORD;
    return { username: auth.username ?? EMBEDDED_USERNAME, domain, password: new Secret(password), scheme };
  }
  if (!doc.auth) report.error(["auth"], `is required for a real instance: { username, password: \${VAR} }`);
  if (doc.auth && !auth.username) report.error(["auth", "username"], "is required");
  if (doc.auth && !auth.password) report.error(["auth", "password"], `is required; use \${VAR}`);
  if (!auth.username || !auth.password) return null;
  if (!report.document.substituted.has("auth.password"))
    report.warning(["auth", "password"], `is written in the file; use \${VAR} so that it stays out of git`);
  return { username: auth.username, domain, password: new Secret(auth.password), scheme };
}

function tlsOf(
  doc: EnvironmentDocument,
  endpoint: Endpoint,
  options: EnvironmentContextOptions,
  report: Reporter,
): EnvironmentConfig["tls"] {
  const tls = doc.tls ?? {};
  if (endpoint.kind === "embedded") {
    if (doc.tls) report.warning(["tls"], "is ignored: an embedded emulator is plain HTTP inside the process");
    return { insecure: false };
  }
  if (tls.insecure && tls.caFile)
    report.error(["tls", "insecure"], "contradicts tls.caFile; give one of them");
  else if (tls.insecure) report.warning(["tls", "insecure"], "certificate verification is off");
  if (!tls.caFile) return { insecure: tls.insecure ?? false };
  const caFile = isAbsolute(tls.caFile) ? tls.caFile : resolve(options.dir, tls.caFile);
  if (!options.fileExists(caFile))
    report.error(["tls", "caFile"], `file not found: ${relative(options.dir, caFile) || caFile}`);
  return { caFile, insecure: tls.insecure ?? false };
}

/** Milliseconds of `timeouts.<key>`, or undefined when not given or out of range (reported). */
function timeoutOf(
  doc: EnvironmentDocument,
  key: keyof NonNullable<EnvironmentDocument["timeouts"]>,
  report: Reporter,
) {
  const value = doc.timeouts?.[key];
  if (value === undefined) return undefined;
  const ms = durationMs(value);
  if (ms >= 1 && ms <= MAX_TIMEOUT_MS) return ms;
  report.error(["timeouts", key], "must be from 1ms to 24h");
  return undefined;
}

function timeoutsOf(doc: EnvironmentDocument, report: Reporter): EnvironmentConfig["timeouts"] {
  const timeouts: EnvironmentConfig["timeouts"] = { ...DEFAULT_TIMEOUTS };
  const fields = [
    ["connect", "connectMs"],
    ["headers", "headersMs"],
    ["request", "requestMs"],
    ["stall", "bodyMs"],
  ] as const;
  for (const [key, field] of fields) timeouts[field] = timeoutOf(doc, key, report) ?? timeouts[field];
  return timeouts;
}

function waitsOf(doc: EnvironmentDocument, report: Reporter): EnvironmentConfig["waits"] {
  return {
    jobMs: timeoutOf(doc, "job", report) ?? DEFAULT_WAITS.jobMs,
    verifyMs: timeoutOf(doc, "verify", report) ?? DEFAULT_WAITS.verifyMs,
  };
}

const ASSUMED_CODES: Record<keyof InstallCodeOverrides, Readonly<Record<string, number>>> = {
  installMethod: INSTALL_METHOD_CODES,
  installOption: INSTALL_OPTION_CODES,
  translationOption: TRANSLATION_OPTION_CODES,
};

/** Two words of one option with one code, given or assumed, could not be told apart by the instance. */
function installCodesOf(doc: EnvironmentDocument, report: Reporter): InstallCodeOverrides | undefined {
  const given = doc.installCodes;
  if (!given) return undefined;
  for (const option of ["installMethod", "installOption", "translationOption"] as const) {
    const own: Readonly<Record<string, number | undefined>> = given[option] ?? {};
    const entries = Object.entries(own).filter(([, code]) => code !== undefined);
    entries.forEach(([word, code], index) => {
      const at = ["installCodes", option, word];
      const earlier = entries.slice(0, index).find(([, c]) => c === code)?.[0];
      const assumed = Object.entries(ASSUMED_CODES[option]).find(
        ([w, c]) => own[w] === undefined && c === code,
      );
      if (earlier) report.error(at, `is ${earlier}'s code too; each word needs its own code`);
      else if (assumed)
        report.error(at, `is ${assumed[0]}'s assumed code too; give ${assumed[0]}'s code as well`);
    });
  }
  return {
    ...(given.installMethod ? { installMethod: { ...given.installMethod } } : {}),
    ...(given.installOption ? { installOption: { ...given.installOption } } : {}),
    ...(given.translationOption ? { translationOption: { ...given.translationOption } } : {}),
  };
}

/** `release` and `requiresVerifiedOn`: a release replaces a live source, and names known environments. */
function releaseOf(doc: EnvironmentDocument, options: EnvironmentContextOptions, report: Reporter) {
  if (doc.release !== undefined && !options.fileExists(join(options.dir, "releases", `${doc.release}.yaml`)))
    report.error(
      ["release"],
      `no such release file releases/${doc.release}.yaml; build it with egp release create --from ENV --name ${doc.release} and commit it`,
    );
  if (doc.release !== undefined && doc.packagesFrom !== undefined)
    report.error(
      ["release"],
      "and packagesFrom exclude each other: an environment runs a release, or is promoted to from a live source",
      "key",
    );
  for (const [index, env] of (doc.requiresVerifiedOn ?? []).entries()) {
    if (env === options.name) report.error(["requiresVerifiedOn", index], "names this environment itself");
    else if (!options.knownEnvironments.has(env))
      report.error(
        ["requiresVerifiedOn", index],
        `unknown environment "${env}" (known: ${[...options.knownEnvironments].join(", ")})`,
      );
  }
  if (doc.requiresVerifiedOn !== undefined && doc.release === undefined)
    report.warning(["requiresVerifiedOn"], "has no effect without release:");
}

function packagesFromOf(doc: EnvironmentDocument, options: EnvironmentContextOptions, report: Reporter) {
  const from = doc.packagesFrom;
  if (from === undefined) return undefined;
  if (from === options.name) report.error(["packagesFrom"], "names this environment itself");
  else if (!options.knownEnvironments.has(from))
    report.error(
      ["packagesFrom"],
      `unknown environment "${from}" (known: ${[...options.knownEnvironments].join(", ")})`,
    );
  return from;
}

/** A value, and the host of a value that is a whole url: messages name hosts on their own. */
function spellings(value: string): string[] {
  if (!value) return [];
  const host = URL.canParse(value) ? new URL(value).host : "";
  return host && host !== value ? [value, host] : [value];
}

/**
 * A name → id map without a prototype, so that a name such as `constructor` or `__proto__` is a
 * key like any other and never reaches Object.prototype. Look names up with `idOf`.
 */
function ownMap(map: Readonly<Record<string, number>> | undefined): Readonly<Record<string, number>> {
  const own: Record<string, number> = Object.create(null);
  for (const [name, id] of Object.entries(map ?? {})) own[name] = id;
  return own;
}

/** Step 2 of validating an environment file (zod has passed): normalize, checking as it goes. */
export function normalizeEnvironment(
  doc: EnvironmentDocument,
  options: EnvironmentContextOptions,
  report: Reporter,
): EnvironmentConfig | null {
  const endpoint = endpointOf(doc, options.dir, report);
  if (!endpoint) return null;
  const writtenUrl = report.document.substituted.get("url")?.written;
  if (endpoint.kind === "http" && writtenUrl !== undefined) endpoint.written = writtenUrl;
  if (endpoint.kind === "http" && !doc.instance)
    report.error(["instance"], "is required for a real instance (the InstanceName to log into)");
  const auth = authOf(doc, endpoint, options, report);
  const tls = tlsOf(doc, endpoint, options, report);
  const packagesFrom = packagesFromOf(doc, options, report);
  releaseOf(doc, options, report);
  const timeouts = timeoutsOf(doc, report);
  const waits = waitsOf(doc, report);
  const installCodes = installCodesOf(doc, report);
  const verify = verifySettingsOf(doc.verify, endpoint.kind !== "http", report);
  if (!auth || report.failed()) return null;
  const config: EnvironmentConfig = {
    name: options.name,
    file: report.document.file,
    source: report.document.locate([]),
    endpoint,
    instance: doc.instance ?? "Default",
    auth,
    tls,
    roles: ownMap(doc.roles),
    groups: ownMap(doc.groups),
    domains: ownMap(doc.domains),
    limits: { ...DEFAULT_LIMITS, ...doc.limits },
    timeouts,
    waits,
    verify,
  };
  if (installCodes) config.installCodes = installCodes;
  if (packagesFrom) config.packagesFrom = packagesFrom;
  if (doc.release) config.release = doc.release;
  if (doc.requiresVerifiedOn) config.requiresVerifiedOn = [...doc.requiresVerifiedOn];
  if (doc.freeze?.length) config.freeze = doc.freeze.map(normalizeFreezeWindow);
  if (doc.groups === undefined) config.groupsFromInstance = true;
  if (doc.roles === undefined) config.rolesFromInstance = true;
  const values = [...report.document.substituted.values()].flatMap((s) => s.values.flatMap(spellings));
  if (values.length > 0) config.sensitive = [...new Set(values)].map((value) => new Secret(value));
  return config;
}
