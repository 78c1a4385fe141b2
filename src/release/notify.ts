import { request } from "undici";
import type { ApplyOutcome, ApplySummary } from "../apply/apply-plan.ts";
import { summaryOf } from "../apply/apply-plan.ts";
import { codedMessage } from "../errors/index.ts";
import { loadProject, type NotifyEvent, type NotifySpec, type Project } from "../manifest/project.ts";
import { expandString } from "../manifest/substitute.ts";
import type { Plan } from "../plan/model.ts";
import { actorOf, FrozenError } from "./freeze-gate.ts";
import { ReleaseGateError } from "./release-gate.ts";

/*
 * Webhooks of egp.yaml's `notify:`. A notification reports; it never decides: a failed one is said
 * and the command's result stands. The address is a secret of the receiving tool (a chat webhook's
 * path is its key), so it is never printed; messages name the entry by its index.
 */

export interface Notice {
  event: NotifyEvent;
  /** The environment it happened to; none for a rejection, which belongs to the release alone. */
  environment?: string;
  /** The release the environment runs, when it runs one. */
  release?: string;
  /** A sentence: what was done or refused, counted as plans count. */
  summary: string;
  /** `drift`: the open findings (never the acknowledged ones), without their values. */
  findings?: NoticeFinding[];
}

/** A drift finding as a webhook gets it: what and where, never the value. */
export interface NoticeFinding {
  fingerprint: string;
  kind: string;
  object: string;
  part: string;
  severity: string;
  remedy: string;
}

/** What is posted: a JSON object whose `text` chat webhooks show as it is. */
export interface NoticeBody extends Required<Omit<Notice, "release" | "environment" | "findings">> {
  findings?: NoticeFinding[];
  environment: string | null;
  release: string | null;
  actor: string;
  at: string;
  runUrl: string | null;
  text: string;
}

export interface NotifyOptions {
  /** Variables the url's `${…}` are taken from (default process.env). */
  variables?: Readonly<Record<string, string | undefined>>;
  say: (line: string) => void;
  timeoutMs?: number;
  tries?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
}

/** The CI run's page, on GitHub Actions. */
export function runUrlOf(env: Readonly<Record<string, string | undefined>>): string | null {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: run } = env;
  return server && repository && run ? `${server}/${repository}/actions/runs/${run}` : null;
}

export function noticeBody(notice: Notice, variables: NotifyOptions["variables"], at: Date): NoticeBody {
  const env = variables ?? process.env;
  const actor = actorOf(env as NodeJS.ProcessEnv);
  const release = notice.release ?? null;
  const subject = notice.environment
    ? `: ${notice.environment}${release ? ` (release ${release})` : ""}`
    : release
      ? ` release ${release}`
      : "";
  const text = `egp ${notice.event}${subject}: ${notice.summary} (by ${actor})`;
  return {
    ...notice,
    environment: notice.environment ?? null,
    release,
    actor,
    at: at.toISOString(),
    runUrl: runUrlOf(env),
    text: text.replace(/[\r\n]+/g, " "),
  };
}

const sleeping = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function post(url: string, body: string, timeoutMs: number): Promise<void> {
  const response = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  await response.body.dump();
  if (response.statusCode >= 300) throw new Error(`HTTP ${response.statusCode}`);
}

/** undici's own timeouts; the abort signal's is a DOMException named TimeoutError (its code is 23). */
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);

/** Why a post failed, in words, without the address (undici's messages may quote the host or the path). */
function reasonOf(error: unknown, timeoutMs: number): string {
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: string; message?: string };
  if (message?.startsWith("HTTP ")) return message;
  if (name === "TimeoutError" || (typeof code === "string" && TIMEOUT_CODES.has(code)))
    return `timed out after ${timeoutMs / 1000} s`;
  return typeof code === "string" ? code : (name ?? "failed");
}

async function postPatiently(target: NotifySpec, index: number, body: string, options: NotifyOptions) {
  const { say, timeoutMs = 5000, tries = 3, sleep = sleeping } = options;
  const expanded = expandString(target.url, options.variables ?? process.env);
  if (expanded.failures.length > 0) {
    say(`Notification notify[${index}] not sent: its url names a variable that is not set.`);
    return;
  }
  let reason = "";
  for (let attempt = 1; attempt <= tries; attempt += 1) {
    try {
      await post(expanded.text, body, timeoutMs);
      return;
    } catch (error) {
      reason = reasonOf(error, timeoutMs);
      if (attempt < tries) await sleep(500 * 2 ** (attempt - 1));
    }
  }
  say(`Notification notify[${index}] failed after ${tries} tries (${reason}); the result above stands.`);
}

/** Posts the notice to every webhook that takes its event, at once; resolves when all are done. */
export async function notify(
  project: Pick<Project, "notify">,
  notice: Notice,
  options: NotifyOptions,
): Promise<void> {
  const targets = project.notify.map((target, index) => ({ target, index }));
  const wanted = targets.filter(({ target }) => target.events.includes(notice.event));
  if (wanted.length === 0) return;
  const body = JSON.stringify(noticeBody(notice, options.variables, (options.now ?? (() => new Date()))()));
  await Promise.all(wanted.map(({ target, index }) => postPatiently(target, index, body, options)));
}

/** A notifier for the repository: egp.yaml read once, or nothing posted when it can't be read. */
export async function notifierFor(dir: string, say: (line: string) => void) {
  const project = await loadProject(dir).catch(() => ({ notify: [] }));
  return (notice: Notice) => notify(project, notice, { say });
}

/** A gate said no before anything was written: a freeze, the release gate. */
export const isRefusal = (error: unknown) =>
  error instanceof FrozenError || error instanceof ReleaseGateError;

const counted = (s: ApplySummary) =>
  `${s.added} added, ${s.changed} changed, ${s.destroyed} destroyed, ${s.promoted} promoted`;

/**
 * The notice an apply ends with: applied when it converged, failed when a step failed or it did
 * not converge, refused when a gate said no before anything was written (a freeze, the release gate).
 */
export function applyNotice(
  environment: string,
  release: string | undefined,
  ended: { outcome: ApplyOutcome } | { error: unknown },
): Notice | undefined {
  const base = { environment, ...(release ? { release } : {}) };
  if ("error" in ended) {
    const refused = isRefusal(ended.error);
    const message = codedMessage(ended.error);
    return { ...base, event: refused ? "refused" : "failed", summary: message.split("\n")[0] ?? "" };
  }
  const { outcome } = ended;
  if (outcome.result !== "complete" && outcome.result !== "incomplete") return undefined;
  const summary = summaryOf(outcome.plan, outcome.run);
  if (outcome.result === "complete" && outcome.converged)
    return { ...base, event: "applied", summary: `${counted(summary)}; verified` };
  const failed = summary.failed.map((f) => f.step).join(", ");
  const why = outcome.converged ? `steps failed: ${failed}` : "did not converge";
  return { ...base, event: "failed", summary: `${counted(summary)}; ${why}` };
}

/** The notice of a drift report that found drift. */
export function driftNotice(
  plan: Pick<Plan, "environment" | "summary">,
  release: string | undefined,
  open?: readonly NoticeFinding[],
): Notice {
  const { drift } = plan.summary;
  const findings = open?.map(({ fingerprint, kind, object, part, severity, remedy }) => ({
    fingerprint,
    kind,
    object,
    part,
    severity,
    remedy,
  }));
  return {
    event: "drift",
    environment: plan.environment,
    ...(release ? { release } : {}),
    summary: findings
      ? `${findings.length} open ${findings.length === 1 ? "finding" : "findings"}`
      : `${drift} ${drift === 1 ? "object differs" : "objects differ"} from the manifests`,
    ...(findings ? { findings } : {}),
  };
}
