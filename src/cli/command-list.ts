import type { Command } from "commander";

export type Register = (program: Command) => void;

/*
 * Each command's module is imported only when that command runs (or for the help that lists them
 * all): a run of `plan` does not load the emulator, compare or export, and `--version` loads none.
 */
export const COMMANDS: Record<string, () => Promise<Register>> = {
  emulator: async () => (await import("./commands/emulator.ts")).registerEmulatorCommand,
  validate: async () => (await import("./commands/validate.ts")).registerValidateCommand,
  schema: async () => (await import("./commands/schema.ts")).registerSchemaCommand,
  plan: async () => (await import("./commands/plan.ts")).registerPlanCommand,
  drift: async () => (await import("./commands/drift.ts")).registerDriftCommand,
  show: async () => (await import("./commands/show.ts")).registerShowCommand,
  apply: async () => (await import("./commands/apply.ts")).registerApplyCommand,
  rollback: async () => (await import("./commands/rollback.ts")).registerRollbackCommand,
  verify: async () => (await import("./commands/verify.ts")).registerVerifyCommand,
  release: async () => (await import("./commands/release.ts")).registerReleaseCommand,
  history: async () => (await import("./commands/releases.ts")).registerReleasesCommand,
  export: async () => (await import("./commands/export.ts")).registerExportCommand,
  compare: async () => (await import("./commands/compare.ts")).registerCompareCommand,
  status: async () => (await import("./commands/status.ts")).registerStatusCommand,
  audit: async () => (await import("./commands/audit.ts")).registerAuditCommand,
  keys: async () => (await import("./commands/keys.ts")).registerKeysCommand,
};

/** Other names of a command, as its module registers them. */
const ALIASES: Record<string, string> = { releases: "history" };

/** Global options that take a value: the word after them is not a command. */
const GLOBAL_VALUES = new Set(["--dir", "--log-level"]);

/**
 * The commands a run needs: the one named; none for `--version` alone; every one otherwise (help,
 * `egp help plan`, a mistyped name, whose message lists them).
 */
export function commandsFor(args: readonly string[]): string[] {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") break;
    if (GLOBAL_VALUES.has(arg)) {
      i += 1;
      continue;
    }
    if (arg.startsWith("-")) continue;
    const name = Object.hasOwn(ALIASES, arg) ? (ALIASES[arg] as string) : arg;
    return Object.hasOwn(COMMANDS, name) ? [name] : Object.keys(COMMANDS);
  }
  if (args.includes("-V") || args.includes("--version")) return [];
  return Object.keys(COMMANDS);
}
