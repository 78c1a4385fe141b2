import { capMarkdown, fenceFor, GITHUB_BODY_LIMIT } from "./cap.ts";

/*
 * Bodies of the pull-request plan comment and of the drift issue, from what one egp run printed.
 * egp never prints a secret (DESIGN §3); these builders only ever see its stdout and stderr, never
 * the environment, so they can't add one.
 */

/** What one `egp plan` or `egp drift` run left behind. */
export interface EgpRun {
  environment: string;
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface BodyOptions {
  /** Link to the workflow run, for the footer and for where the whole output is. */
  runUrl?: string;
  /** Name of the artifact holding the plan file. */
  artifact?: string;
  /** Tells plans of the same environment name in different folders of one repository apart. */
  scope?: string;
  limit?: number;
  /** A line above the plan: why the preview ran as it did (base-environments.ts). */
  note?: string;
}

function markerKey(environment: string, scope?: string): string {
  const folder = (scope ?? "").replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  return folder && folder !== "." ? `${folder}/${environment}` : environment;
}

/** First line of the sticky comment; a comment is ours when its body starts with it. */
export function planMarker(environment: string, scope?: string): string {
  return `<!-- egp-plan:${markerKey(environment, scope)} -->`;
}

/** First line of the drift issue's body. */
export function driftMarker(environment: string, scope?: string): string {
  return `<!-- egp-drift:${markerKey(environment, scope)} -->`;
}

/** 0 and 2 are answers (no changes, changes); anything else means egp could not answer. */
export function succeeded(exitCode: number): boolean {
  return exitCode === 0 || exitCode === 2;
}

function fenced(text: string): string {
  const fence = fenceFor(text);
  return [`${fence}text`, text.replace(/\n+$/, ""), fence].join("\n");
}

function messages(run: EgpRun): string[] {
  if (!run.stderr.trim()) return [];
  return ["<details><summary>egp's messages</summary>", "", fenced(run.stderr), "", "</details>", ""];
}

function failure(command: string, run: EgpRun): string[] {
  return [
    `### egp ${command} for \`${run.environment}\` failed`,
    "",
    `egp exited with code ${run.exitCode}, so there is no ${command === "plan" ? "plan" : "report"} to show.`,
    "",
    ...(run.stderr.trim() ? [fenced(run.stderr), ""] : []),
    ...(run.stdout.trim() ? [run.stdout.replace(/\n+$/, ""), ""] : []),
  ];
}

function footer(run: EgpRun, options: BodyOptions): string {
  const parts = [`egp exit code ${run.exitCode}`];
  if (options.runUrl) parts.push(`[workflow run](${options.runUrl})`);
  if (options.artifact && succeeded(run.exitCode)) parts.push(`plan file: artifact \`${options.artifact}\``);
  return `<sub>${parts.join(" · ")}</sub>`;
}

function whereWhole(options: BodyOptions): string {
  const run = options.runUrl ? `[the workflow run](${options.runUrl})` : "the workflow run";
  if (options.artifact) return `The whole plan is in the \`${options.artifact}\` artifact of ${run}.`;
  return `The whole output is in the log of ${run}.`;
}

/** Marker first, footer last; the middle is cut when the whole would pass GitHub's limit. */
function assemble(marker: string, middle: string[], run: EgpRun, options: BodyOptions): string {
  const end = footer(run, options);
  const limit = (options.limit ?? GITHUB_BODY_LIMIT) - marker.length - end.length - 4;
  const { text } = capMarkdown(middle.join("\n").replace(/\n+$/, ""), limit, whereWhole(options));
  return [marker, text, "", end, ""].join("\n");
}

/** The sticky pull-request comment of one environment's plan. */
export function buildPlanComment(run: EgpRun, options: BodyOptions = {}): string {
  const note = options.note ? [`> ${options.note.replace(/\s+/g, " ")}`, ""] : [];
  const middle = succeeded(run.exitCode)
    ? [
        ...note,
        run.stdout.trim() ? run.stdout.replace(/\n+$/, "") : "egp printed no plan.",
        "",
        ...messages(run),
      ]
    : [...note, ...failure("plan", run)];
  return assemble(planMarker(run.environment, options.scope), middle, run, options);
}

export function driftIssueTitle(environment: string): string {
  return `egp drift: ${environment} differs from the manifests`;
}

/** The body of the issue that stays open while the environment has drifted. */
export function buildDriftIssueBody(run: EgpRun, options: BodyOptions = {}): string {
  const found = options.runUrl ? ` by [this workflow run](${options.runUrl})` : "";
  const report = options.runUrl
    ? ` Every finding is in the JSON report, [an artifact of the run](${options.runUrl}#artifacts).`
    : "";
  const middle = [
    `\`${run.environment}\` has drifted: the instance differs from the manifests (found${found}).`,
    "Apply the manifests, change them to match what was changed on purpose, or acknowledge a finding with the",
    "`egp drift ack` command listed for it (commit the file it writes in a pull request). This issue is updated on",
    `every check while findings are open, and closed by the first check with none open.${report}`,
    "",
    run.stdout.replace(/\n+$/, ""),
    "",
    ...messages(run),
  ];
  return assemble(driftMarker(run.environment, options.scope), middle, run, options);
}

/** The comment left on the drift issue when it is closed. */
export function driftResolvedComment(environment: string, runUrl?: string): string {
  const by = runUrl ? ` ([workflow run](${runUrl}))` : "";
  return `\`${environment}\` matches the manifests again${by}. Closing.`;
}
