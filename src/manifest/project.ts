import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { durationMs } from "./environment.ts";
import { ManifestError, type ManifestIssue } from "./errors.ts";
import { reporterFor } from "./report.ts";
import { parseYamlFile } from "./yaml-source.ts";
import { reportZodIssues } from "./zod-issues.ts";

/*
 * egp.yaml, at the repository root: settings of the repository as a whole: the release store and webhooks.
 * Without the file, or without `releases.store`, the store is the folder `.egp/store` (like
 * Terraform's local backend: on this machine only).
 */

export const PROJECT_FILE = "egp.yaml";

/** What egp tells a webhook about (docs/governance.md). */
export const NOTIFY_EVENTS = [
  "applied",
  "failed",
  "refused",
  "drift",
  "rejected",
  "rolled-back",
  "verified",
  "verification-failed",
] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

const NotifyTarget = z.strictObject({
  url: z
    .string()
    .min(1)
    .describe(
      `The webhook's address, usually \${VAR}: it is a secret of the chat or incident tool, never printed or posted.`,
    ),
  events: z.array(z.enum(NOTIFY_EVENTS)).min(1).describe("The events posted to it."),
});

export const ProjectDocument = z.strictObject({
  notify: z
    .array(NotifyTarget)
    .optional()
    .describe(
      "Webhooks egp POSTs a JSON summary to when an apply ends, is refused, drifts or a release is rejected.",
    ),
  releases: z
    .strictObject({
      store: z
        .string()
        .min(1)
        .optional()
        .describe(
          "Where releases, snapshots and the install history are kept: a folder (relative to the repository root, or absolute) or oci://host[:port]/repository.",
        ),
      plainHttp: z
        .boolean()
        .optional()
        .describe("Talk HTTP, not HTTPS, to an oci:// store (always so for localhost and 127.0.0.1)."),
      settle: z
        .union([
          z.number().positive(),
          z
            .string()
            .regex(/^\d+(?:\.\d+)?(ms|s|m)$/, "expected a duration: 1.5s, 500ms, 1m, or seconds as a number"),
        ])
        .optional()
        .describe(
          "An oci:// store's settle time: how long a create-once record (a release name) waits before it reads its tag back; a create whose check-to-write window reached it can't be sure it won (default 1.5s; raise it for a registry whose manifest PUTs take longer).",
        ),
      trustedKeys: z
        .array(
          z
            .string()
            .regex(
              /^ed25519:[A-Za-z0-9+/]{43}=$/,
              "expected ed25519:<base64 public key>, as 'egp keys' prints it",
            ),
        )
        .optional()
        .describe(
          "Public keys whose signatures on the store's records (releases, verifications, install history) egp believes; 'egp keys' makes a pair, and EGP_SIGNING_KEY holds the private one.",
        ),
    })
    .optional(),
  drift: z
    .strictObject({
      maxAcknowledgementDays: z
        .number()
        .int()
        .positive()
        .optional()
        .describe("How far ahead a drift acknowledgement's until may be, in days (default 90)."),
    })
    .optional(),
});

export type ProjectDocument = z.infer<typeof ProjectDocument>;

/** A webhook as written: its url may name variables, expanded only when it is posted to. */
export interface NotifySpec {
  url: string;
  events: readonly NotifyEvent[];
}

export interface Project {
  releases: StoreSpec;
  notify: readonly NotifySpec[];
  /** egp.yaml's `drift`: how far ahead an acknowledgement may run. */
  drift?: { maxAcknowledgementDays?: number };
}

/** Where the release store is, as egp.yaml says. */
export interface StoreSpec {
  /** A folder path or an `oci://` address; undefined for the default. */
  store?: string;
  plainHttp?: boolean;
  /** Public keys (`ed25519:…`) whose signatures on records egp believes. */
  trustedKeys?: string[];
  /** An oci:// store's settle time, in ms (`releases.settle`). */
  settleMs?: number;
}

export interface ProjectOptions {
  /**
   * Checks a `releases.store` value (the store stage's grammar, which the manifest stage does not
   * import): a message when it is not a store's address.
   */
  checkStore?: (spec: StoreSpec) => string | undefined;
}

/** The settings of egp.yaml (all optional); ManifestError with file:line:col on a bad one. */
export async function loadProject(root: string, options: ProjectOptions = {}): Promise<Project> {
  let text: string;
  try {
    text = await readFile(join(root, PROJECT_FILE), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { releases: {}, notify: [] };
    throw error;
  }
  return parseProject(text, options);
}

export function parseProject(text: string, options: ProjectOptions = {}): Project {
  const issues: ManifestIssue[] = [];
  const parsed = parseYamlFile(PROJECT_FILE, text);
  issues.push(...parsed.issues);
  const [document, ...extra] = parsed.documents;
  for (const more of extra) reporterFor(more, [], issues).error([], "egp.yaml holds one document");
  if (issues.length > 0) throw new ManifestError(issues);
  if (!document) return { releases: {}, notify: [] };
  const report = reporterFor(document, [], issues);
  const result = ProjectDocument.safeParse(document.value);
  if (!result.success) {
    reportZodIssues(result.error, report);
    throw new ManifestError(issues);
  }
  const { settle, ...given } = result.data.releases ?? {};
  const releases: StoreSpec = { ...given, ...(settle === undefined ? {} : { settleMs: durationMs(settle) }) };
  if (releases.plainHttp !== undefined && !releases.store?.startsWith("oci://")) {
    report.error(["releases", "plainHttp"], "applies to an oci:// store only", "key");
  } else if (settle !== undefined && !releases.store?.startsWith("oci://")) {
    report.error(["releases", "settle"], "applies to an oci:// store only", "key");
  } else if (releases.store !== undefined) {
    const message = options.checkStore?.(releases);
    if (message) report.error(["releases", "store"], message);
  }
  if (issues.length > 0) throw new ManifestError(issues);
  const notify = (result.data.notify ?? []).map((n) => ({ url: n.url, events: [...n.events] }));
  return { releases, notify, ...(result.data.drift ? { drift: result.data.drift } : {}) };
}
