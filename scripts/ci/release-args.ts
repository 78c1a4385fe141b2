import { setOutputs } from "./actions.ts";
import { runMain } from "./context.ts";

/*
 * The arguments of `egp release create` from the workflow's inputs, checked before they reach a
 * command line or a branch name:
 *
 *   node scripts/ci/release-args.ts   (RELEASE_FROM=dev RELEASE_NAME=2026.11.1 [RELEASE_TARGETS="Package/a Package/b"])
 *
 * The inputs come in through the environment, never pasted into shell code. Sets the outputs
 * `args` (for the egp action) and `name`.
 */

/** A release name: one key segment of the release store (lower case, digits, '.', '_', '-'). */
export const RELEASE_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const ENVIRONMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
// `--target KIND/KEY`, as `egp plan --target` takes it; no quote or backslash, so it can be quoted.
const TARGET = /^[A-Za-z]+\/[^"\\\s]+$/;

export function releaseArgs(from: string, name: string, targets = ""): string {
  if (!ENVIRONMENT.test(from))
    throw new Error(`from-environment ${JSON.stringify(from)} is not an environment name`);
  if (!RELEASE_NAME.test(name)) {
    throw new Error(
      `name ${JSON.stringify(name)} is not a release name (lower case letters, digits, '.', '_', '-')`,
    );
  }
  const words = targets.split(/[\s,]+/).filter(Boolean);
  for (const target of words) {
    if (!TARGET.test(target)) throw new Error(`target ${JSON.stringify(target)} is not KIND/KEY`);
  }
  return [
    `release create --from ${from} --name ${name}`,
    ...words.map((target) => `--target "${target}"`),
  ].join(" ");
}

export async function main(env: Record<string, string | undefined> = process.env): Promise<number> {
  const name = env.RELEASE_NAME ?? "";
  const args = releaseArgs(env.RELEASE_FROM ?? "", name, env.RELEASE_TARGETS ?? "");
  setOutputs({ args, name }, env);
  process.stdout.write(`egp ${args}\n`);
  return 0;
}

if (import.meta.main) runMain(() => main());
