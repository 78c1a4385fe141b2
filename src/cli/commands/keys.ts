import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { generateSigningKey } from "../../store/index.ts";
import { ExitError } from "../errors.ts";

interface KeysFlags {
  out?: string;
}

/*
 * `egp keys [--out FILE]`: a new Ed25519 key pair for signing the release store's records. The
 * private key goes to a new 0600 file, or is printed once; the public key is printed with the line
 * egp.yaml lists it under (docs/security.md).
 */
export function registerKeysCommand(program: Command): void {
  program
    .command("keys")
    .description(
      "make a key pair that signs the release store's records (EGP_SIGNING_KEY, releases.trustedKeys)",
    )
    .option("--out <file>", "write the private key to this new file (0600) instead of printing it")
    .action((_options: unknown, command: Command) => {
      const flags = command.opts<KeysFlags>();
      const { privateKey, publicKey } = generateSigningKey();
      if (flags.out) {
        try {
          writeFileSync(flags.out, `${privateKey}\n`, { mode: 0o600, flag: "wx" });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EEXIST")
            throw new ExitError("EGP_USAGE", `keys: ${flags.out} exists; egp does not overwrite a key`);
          throw error;
        }
      }
      const out = [
        `Public key: ${publicKey}`,
        `List it in egp.yaml:  releases: { trustedKeys: [ "${publicKey}" ] }`,
        flags.out
          ? `Private key written to ${flags.out} (0600): store it as the CI secret EGP_SIGNING_KEY, then delete the file.`
          : "Private key (shown once; store it as the CI secret EGP_SIGNING_KEY):",
        ...(flags.out ? [] : [privateKey]),
      ];
      process.stdout.write(`${out.join("\n")}\n`);
    });
}
