import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import type { Logger } from "pino";
import { type Connections, connections } from "./connect.ts";
import { ExitError } from "./errors.ts";
import { createLogger } from "./logger.ts";
import { stateDirOf } from "./state-dir.ts";
import { wantsColour } from "./style.ts";

export interface GlobalFlags {
  dir: string;
  logLevel: string;
  json?: boolean;
  /** false with --no-color (style.ts). */
  color?: boolean;
}

export interface RunContext<F> {
  flags: F & GlobalFlags;
  dir: string;
  logger: Logger;
  connections: Connections;
}

export function repositoryDir(dir: string): string {
  const path = resolve(dir);
  if (!existsSync(path) || !statSync(path).isDirectory())
    throw new ExitError("EGP_USAGE", `--dir: not a directory: ${dir}`);
  return path;
}

/** Runs a command that talks to environments, and always closes what it opened. */
export async function withEnvironments<F>(
  command: Command,
  body: (context: RunContext<F>) => Promise<void>,
): Promise<void> {
  const flags = command.optsWithGlobals<F & GlobalFlags>();
  const dir = repositoryDir(flags.dir);
  const logger = createLogger(flags.logLevel, Boolean(flags.json), wantsColour(process.stderr, flags));
  const open = connections({ logger, stateDir: stateDirOf(dir) });
  try {
    await body({ flags, dir, logger, connections: open });
  } finally {
    await open.closeAll();
  }
}
