import type { Command } from "commander";
import { EgpError } from "../../errors/index.ts";
import { ExitError } from "../errors.ts";

interface EmulatorFlags {
  port: string;
  host: string;
  seed: string;
  release?: string;
  data?: string;
  instance: string;
  faults?: string;
  scheme: string;
  adminPassword?: string;
  profile: string;
  integrations: boolean;
}

function profileOf(text: string): "default" | "foreign" {
  if (text === "default" || text === "foreign") return text;
  throw new ExitError("EGP_USAGE", `--profile: expected default or foreign, got ${JSON.stringify(text)}`);
}

function portOf(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ExitError("EGP_USAGE", `--port: not a port number: ${text}`);
  return port;
}

/** Where sysadmin's password comes from; a password the user chose is never printed. */
function passwordSource(flags: EmulatorFlags): string {
  if (flags.adminPassword !== undefined) return "as given by --admin-password";
  if (process.env.EGP_EMULATOR_PASSWORD) return "from EGP_EMULATOR_PASSWORD";
  return "Password1! (the default; set another with --admin-password or EGP_EMULATOR_PASSWORD)";
}

export function registerEmulatorCommand(program: Command): void {
  program
    .command("emulator")
    .description("run the platform emulator")
    .option("--port <n>", "port to listen on (0 picks a free one)", "8080")
    .option("--host <h>", "address to listen on", "127.0.0.1")
    .option("--seed <s>", "empty, demo-dev, demo-prod or scale:users=N,apps=M,records=R", "demo-dev")
    .option("--release <r>", "platform release to behave as (< 6.5 serves /api only)")
    .option("--data <file>", "keep the state in this file; every write is on disk before it is answered")
    .option("--instance <name>", "instance name that logins must give", "Default")
    .option("--faults <spec>", "fault injection, e.g. seed=7,rate=0.2,statuses=503+429")
    .option("--scheme <word>", "scheme word of the Authorization header", "Platform")
    .option("--admin-password <pw>", "sysadmin's password (default: $EGP_EMULATOR_PASSWORD, else Password1!)")
    .option(
      "--profile <p>",
      "default, or foreign: behave like an instance egp has never seen (package files of its own layout, no package list, HTML 404 pages)",
      "default",
    )
    .option(
      "--no-integrations",
      "answer 404 to what integrations of real instances use beyond the interface description (Content API, SOAP, CSRF lookup, /api paths from 6.5)",
    )
    .action(async (flags: EmulatorFlags) => {
      const { startEmulator } = await import("../../emulator/index.ts");
      const emulator = await startEmulator({
        port: portOf(flags.port),
        profile: profileOf(flags.profile),
        integrations: flags.integrations,
        host: flags.host,
        seed: flags.seed,
        release: flags.release,
        dataFile: flags.data,
        instance: flags.instance,
        faults: flags.faults,
        scheme: flags.scheme,
        adminPassword: flags.adminPassword ?? process.env.EGP_EMULATOR_PASSWORD ?? undefined,
      }).catch((error: Error) => {
        // A failure of the family keeps its own code (a data file another process holds).
        if (error instanceof EgpError) throw error;
        throw new ExitError("EGP_EMULATOR_FAILED", `emulator: ${error.message.split("\n")[0]}`, {
          cause: error,
        });
      });
      process.stdout.write(`listening on ${emulator.url}\n`);
      process.stdout.write(
        `instance "${emulator.store.data.instance}", release ${emulator.store.data.release}, seed ${emulator.store.data.seed}, profile ${emulator.options.profile}\n`,
      );
      process.stdout.write(`log in as sysadmin, password ${passwordSource(flags)}\n`);
      const stop = () => {
        emulator.close().then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}
