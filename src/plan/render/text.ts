import type { Plan } from "../model.ts";
import { freezeLines, rejectedLines } from "./notices.ts";
import { printable, printableLines } from "./printable.ts";
import {
  excludedLine,
  fieldLines,
  headline,
  notReadLine,
  objectLine,
  partialLine,
  type RenderOptions,
  summaryLine,
  unmanagedLine,
} from "./values.ts";

/**
 * Terraform-style text: `+`/`~`/`-` per change, then a summary line. As a drift report
 * (`view: "drift"`) it says that the environment has drifted instead of what apply will do. Names
 * and values show their control characters escaped (printable.ts).
 */
export function renderText(plan: Plan, options: RenderOptions = {}): string {
  const drift = options.view === "drift";
  const environment = printable(plan.environment);
  const notices = [...freezeLines(plan.freeze), ...rejectedLines(plan.rejectedRelease)];
  const lines: string[] = notices.length ? [...notices, ""] : [];
  const partial = partialLine(plan);
  if (partial) lines.push(partial, "");
  // A --target that matched nothing compared nothing: "matches the manifests" would claim it did.
  const compared = plan.partial?.targeted !== 0;
  if (plan.changes.length === 0) {
    if (compared) lines.push(`${drift ? "No drift. " : "No changes. "}${environment} matches the manifests.`);
  } else if (drift) {
    lines.push(`${environment} has drifted from the manifests:`, "");
  } else {
    lines.push(`egp will perform the following actions on ${environment}:`, "");
  }
  for (const change of plan.changes) {
    lines.push(`  ${headline(change, options.view)}`);
    lines.push(`  ${objectLine(change)}`);
    for (const line of fieldLines(change, options)) lines.push(`      ${line}`);
    lines.push("");
  }
  const unmanaged = unmanagedLine(plan.unmanaged);
  if (unmanaged) lines.push(unmanaged);
  const notRead = notReadLine(plan.notRead);
  if (notRead) lines.push(notRead);
  const excluded = excludedLine(plan.excluded ?? []);
  if (excluded) lines.push(excluded);
  if (plan.changes.length > 0) {
    const { drift: drifted, add, change, destroy, promote } = plan.summary;
    lines.push(summaryLine({ add, change, destroy, promote }, options.view));
    if (drifted < plan.changes.length)
      lines.push(`(${plan.changes.length - drifted} change(s) only enforce what can't be read back.)`);
  }
  // Each name is made printable where it is written; this pass is the net under all of them.
  return `${printableLines(lines.join("\n"))}\n`;
}
