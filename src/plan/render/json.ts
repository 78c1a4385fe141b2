import type { Plan } from "../model.ts";

/** The plan file and `--format json`: the plan model itself, which holds no secret (docs/plan-format.md). */
export function renderJson(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}
