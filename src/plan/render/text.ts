import type { Plan } from "../model.ts";
import {
  excludedLine,
  fieldLines,
  headline,
  partialLine,
  SYMBOL,
  summaryLine,
  unmanagedLine,
} from "./values.ts";

/** Terraform-style text: `+`/`~`/`-` per change, then a summary line. */
export function renderText(plan: Plan): string {
  const lines: string[] = [];
  const partial = partialLine(plan);
  if (partial) lines.push(partial, "");
  if (plan.changes.length === 0) {
    lines.push(`No changes. ${plan.environment} matches the manifests.`);
  } else {
    lines.push(`egp will perform the following actions on ${plan.environment}:`, "");
    for (const change of plan.changes) {
      lines.push(`  ${headline(change)}`);
      lines.push(`  ${SYMBOL[change.action]} ${change.kind} "${change.key}"`);
      for (const line of fieldLines(change)) lines.push(`      ${line}`);
      lines.push("");
    }
  }
  const unmanaged = unmanagedLine(plan.unmanaged);
  if (unmanaged) lines.push(unmanaged);
  const excluded = excludedLine(plan.excluded ?? []);
  if (excluded) lines.push(excluded);
  if (plan.changes.length > 0) {
    const { drift, add, change, destroy, promote } = plan.summary;
    lines.push(summaryLine({ add, change, destroy, promote }));
    if (drift < plan.changes.length)
      lines.push(`(${plan.changes.length - drift} change(s) only enforce what can't be read back.)`);
  }
  return `${lines.join("\n")}\n`;
}
