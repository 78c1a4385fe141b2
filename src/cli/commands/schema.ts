import { mkdir, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { schemaFiles } from "../../manifest/index.ts";
import { ExitError } from "../errors.ts";

interface SchemaFlags {
  dir: string;
  json?: boolean;
  out?: string;
}

export function registerSchemaCommand(program: Command): void {
  program
    .command("schema")
    .description("write the JSON Schemas of environment files and manifest documents, for editors")
    .option("--out <folder>", "where to write them (default: schema/ in --dir)")
    .action(async (_flags: unknown, command: Command) => {
      const flags = command.optsWithGlobals<SchemaFlags>();
      const out = flags.out ? resolve(flags.out) : resolve(flags.dir, "schema");
      const written: string[] = [];
      try {
        await mkdir(out, { recursive: true });
        for (const file of schemaFiles()) {
          const path = join(out, file.name);
          await writeFile(path, file.text);
          written.push(relative(process.cwd(), path) || path);
        }
      } catch (error) {
        throw new ExitError("EGP_FILE_SYSTEM", `cannot write the schemas: ${(error as Error).message}`, {
          cause: error,
        });
      }
      if (flags.json) process.stdout.write(`${JSON.stringify({ written })}\n`);
      else for (const path of written) process.stdout.write(`wrote ${path}\n`);
    });
}
