import type { ApplyEvent, ApplySummary } from "../apply/index.ts";

import { type Plan, printable, printableLines } from "../plan/index.ts";
import { bytesText, elapsed, LiveView } from "./live-view.ts";
import { divertLogs } from "./logger.ts";
import { paintPlan, type Style } from "./style.ts";

/**
 * Where apply's output goes. Three shapes: JSON Lines on stdout (`--json`, each line typed as
 * docs/plan-format.md says, sentences for people on stderr); one line per event (not a terminal:
 * CI logs); a live view (a terminal).
 */
export interface ApplyOutput {
  /**
   * A sentence for people: its control characters are escaped but for its line breaks, so a name
   * or an instance's message in it is passed through `printable` by the caller.
   */
  say(line: string): void;
  /** The plan about to be applied. */
  plan(plan: Plan): void;
  event(event: ApplyEvent): void;
  /** The steps have ended (the live view stops redrawing). */
  stepsEnded(): void;
  summary(summary: ApplySummary): void;
  /** The fresh plan after apply: `check` has no changes when the environment converged. */
  verification(check: Plan): void;
  /** Where the confirmation question is asked. */
  readonly prompt: NodeJS.WritableStream;
}

export interface OutputOptions {
  json: boolean;
  tty: boolean;
  style: Style;
  /** A plan as people read it (text, in manifest words). */
  renderPlan(plan: Plan): string;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  columns?: () => number;
}

function counts(summary: ApplySummary): string {
  return `${summary.added} added, ${summary.changed} changed, ${summary.destroyed} destroyed, ${summary.promoted} promoted`;
}

/** What the one-line-per-event log remembers between events. */
export interface EventLog {
  /** The tenth of each transfer last shown, by step and message. */
  lastTenth: Map<string, number>;
  /** When each step started, so that a wait says how long it has lasted. */
  started: Map<string, number>;
}

export function eventLog(): EventLog {
  return { lastTenth: new Map(), started: new Map() };
}

/**
 * One line per event, as CI logs show it: transfers in 10% steps, so that a large one is a few
 * lines, in units that fit (`9.5 KiB`, not `0.0 MiB`); a wait says since when the step has run.
 */
export function eventLine(log: EventLog, event: ApplyEvent, now = Date.now()): string | undefined {
  const line = eventText(log, event, now);
  // Step ids carry keys; messages and errors carry the instance's words.
  return line === undefined ? undefined : printable(line);
}

function eventText(log: EventLog, event: ApplyEvent, now: number): string | undefined {
  const prefix = `${event.step.id} (${event.step.environment})`;
  switch (event.type) {
    case "start":
      log.started.set(event.step.id, now);
      return `${prefix}: started`;
    case "done": {
      const verdict = event.verdict
        ? ` (${event.verdict.verdict}${event.verdict.passes > 1 ? `, ${event.verdict.passes} installs` : ""})`
        : "";
      return `${prefix}: done in ${event.ms ?? 0} ms${verdict}`;
    }
    case "reused":
      return `${prefix}: done in an earlier run, reused`;
    case "stopped":
      return `${prefix}: stopped by the interrupt between tries; checked before anything is written again on resume`;
    case "skipped":
      return `${prefix}: skipped, a step it depends on did not finish`;
    case "retry":
      return `${prefix}: try ${event.attempt} failed (${event.error.message}); trying again`;
    case "failed":
      return `${prefix}: FAILED: ${event.error.code} ${event.error.message}`;
    case "progress": {
      if (event.bytes === undefined) {
        const since = log.started.get(event.step.id);
        return since === undefined
          ? `${prefix}: ${event.message}`
          : `${prefix}: ${event.message} (${elapsed(now - since)} since the step started)`;
      }
      const tenth = event.total
        ? Math.floor((event.bytes / event.total) * 10)
        : Math.floor(event.bytes / (10 * 1024 * 1024));
      // By message too: a promotion's download step reports its download and its upload.
      const key = `${event.step.id} ${event.message}`;
      if (log.lastTenth.get(key) === tenth) return undefined;
      log.lastTenth.set(key, tenth);
      const of = event.total ? ` of ${bytesText(event.total)} (${tenth * 10}%)` : "";
      return `${prefix}: ${event.message} ${bytesText(event.bytes)}${of}`;
    }
  }
}

/** An event as a JSON line: its type, then the step it concerns, then what the event carries. */
export function eventRecord(event: ApplyEvent): Record<string, unknown> {
  const { step, type, ...rest } = event;
  return { type: "step", event: type, step: step.id, op: step.op, environment: step.environment, ...rest };
}

function jsonOutput(out: (text: string) => void, err: (text: string) => void): ApplyOutput {
  const line = (record: Record<string, unknown>) => out(`${JSON.stringify(record)}\n`);
  return {
    say: (text: string) => err(`${printableLines(text)}\n`),
    plan: (plan: Plan) => line({ type: "plan", plan }),
    event: (event: ApplyEvent) => line(eventRecord(event)),
    stepsEnded: () => undefined,
    summary: (summary: ApplySummary) => line({ type: "summary", ...summary }),
    verification: (check: Plan) =>
      line({
        type: "verification",
        environment: check.environment,
        converged: check.changes.length === 0,
        ...(check.changes.length > 0 ? { plan: check } : {}),
      }),
    prompt: process.stderr,
  };
}

function peopleOutput(options: OutputOptions, out: (text: string) => void): ApplyOutput {
  const { style } = options;
  const live = options.tty
    ? new LiveView(
        {
          write: out,
          columns: options.columns ?? (() => process.stdout.columns || Number(process.env.COLUMNS) || 80),
        },
        style,
      )
    : undefined;
  const log = eventLog();
  let stepsRunning = false;
  return {
    say(sentence) {
      const text = printableLines(sentence);
      if (live && stepsRunning) live.say(text);
      else out(`${text}\n`);
    },
    // With nothing to do, the summary says so.
    plan: (plan) => {
      if (plan.changes.length > 0) out(paintPlan(options.renderPlan(plan), style));
    },
    event(event) {
      if (live && !stepsRunning) divertLogs((line) => live.say(line));
      stepsRunning = true;
      if (live) return live.event(event);
      const text = eventLine(log, event);
      if (text !== undefined) out(`${text}\n`);
    },
    stepsEnded() {
      if (live) divertLogs(undefined);
      live?.close();
      stepsRunning = false;
    },
    summary(summary) {
      if (summary.result === "no-changes") {
        out(`No changes. ${printable(summary.environment)} matches the manifests.\n`);
        return;
      }
      if (summary.result === "complete") {
        out(`\n${style.paint("green", `Apply complete: ${counts(summary)}.`)}\n`);
        return;
      }
      const failed = `${summary.failed.length} step(s) failed, ${summary.skipped} skipped`;
      out(`\n${style.paint("red", `Apply incomplete: ${counts(summary)}; ${failed}.`)}\n`);
      for (const failure of summary.failed) out(`  ${printable(`${failure.step}: ${failure.error}`)}\n`);
    },
    verification(check) {
      if (check.changes.length === 0) {
        const environment = printable(check.environment);
        const what = check.partial
          ? `the targeted objects of ${environment} match`
          : `${environment} matches`;
        out(`${style.paint("green", `Verified: ${what} the manifests.`)}\n`);
        return;
      }
      out(`\nVerification: ${printable(check.environment)} still differs from the manifests:\n`);
      out(paintPlan(options.renderPlan(check), style));
    },
    prompt: process.stdout,
  };
}

export function applyOutput(options: OutputOptions): ApplyOutput {
  const out = options.stdout ?? ((text: string) => process.stdout.write(text));
  const err = options.stderr ?? ((text: string) => process.stderr.write(text));
  return options.json ? jsonOutput(out, err) : peopleOutput(options, out);
}
