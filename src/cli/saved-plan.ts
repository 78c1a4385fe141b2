import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Plan, readPlanFile } from "../plan/index.ts";
import { ExitError } from "./errors.ts";

/**
 * The plan saved in `file`, if one is given, and the environment the run is for. As `terraform
 * apply plan.tfplan`: the plan file says where it applies; `--env`, if given, must agree (checked
 * where the plan is applied).
 */
export async function savedPlanOf(
  verb: string,
  file: string | undefined,
  env: string | undefined,
): Promise<{ saved?: Plan; env: string }> {
  const saved = file ? readPlanFile(await readFile(resolve(file), "utf8"), file) : undefined;
  const named = env ?? saved?.environment;
  if (named === undefined)
    throw new ExitError(
      "EGP_USAGE",
      `${verb}: required option '--env <name>' not specified (a plan file names its own)`,
    );
  return saved ? { saved, env: named } : { env: named };
}

/** A question nobody can answer is refused before anything starts. */
export function assertCanAsk(verb: string, asking: boolean, instead: string): void {
  if (asking && !process.stdin.isTTY)
    throw new ExitError(
      "EGP_USAGE",
      `${verb}: not a terminal, so nobody can answer the question; ${instead}`,
    );
}
