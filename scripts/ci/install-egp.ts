import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "./context.ts";

/*
 * Installs egp's runtime dependencies in the checkout this script belongs to (`npm ci --omit=dev`),
 * once per job: the composite action runs it before every command, and a stamp holding the lock
 * file's digest makes the second and later calls free.
 */

export const ROOT = join(import.meta.dirname, "..", "..");
const STAMP = join("node_modules", ".egp-ci-installed");

export function lockDigest(root: string): string {
  return createHash("sha256")
    .update(readFileSync(join(root, "package-lock.json")))
    .digest("hex");
}

export function needsInstall(root: string): boolean {
  const stamp = join(root, STAMP);
  return !existsSync(stamp) || readFileSync(stamp, "utf8").trim() !== lockDigest(root);
}

export async function main(root = ROOT): Promise<number> {
  if (!needsInstall(root)) {
    process.stdout.write("egp's dependencies are installed already\n");
    return 0;
  }
  const npm = spawnSync("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund"], {
    cwd: root,
    stdio: "inherit",
  });
  if (npm.status !== 0) {
    process.stderr.write(`npm ci failed (exit ${npm.status ?? npm.signal})\n`);
    return 1;
  }
  writeFileSync(join(root, STAMP), `${lockDigest(root)}\n`);
  return 0;
}

if (import.meta.main) runMain(() => main());
