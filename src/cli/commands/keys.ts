import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { loadProject } from "../../manifest/project.ts";
import { checkStoreSpec, generateSigningKey, Keyring } from "../../store/index.ts";
import { ExitError } from "../errors.ts";

interface KeysFlags {
  out?: string;
  current?: boolean;
  dir: string;
}

/**
 * The public half of EGP_SIGNING_KEY and whether egp.yaml trusts it: what a team checks when it
 * moves a store to a key or replaces one (docs/security.md, "Keys before evidence").
 */
async function describeCurrent(dir: string): Promise<string[]> {
  const privateKey = process.env.EGP_SIGNING_KEY;
  if (!privateKey)
    throw new ExitError("EGP_USAGE", "keys --current: EGP_SIGNING_KEY is not set; 'egp keys' makes a key");
  const publicKey = new Keyring({ signingKey: privateKey }).signingPublicKey ?? "";
  const { releases } = await loadProject(dir, { checkStore: checkStoreSpec });
  const trusted = releases.trustedKeys ?? [];
  const others = trusted.filter((key) => key !== publicKey);
  return [
    `Public key of EGP_SIGNING_KEY: ${publicKey}`,
    trusted.includes(publicKey)
      ? "egp.yaml lists it under releases.trustedKeys."
      : `egp.yaml does not list it: add it to releases.trustedKeys, or no other machine believes what it signs.`,
    ...(others.length > 0
      ? [`Also trusted (keep each while the records it signed are evidence): ${others.join(", ")}`]
      : []),
  ];
}

/*
 * `egp keys [--out FILE]`: a new Ed25519 key pair for signing the release store's records. The
 * private key goes to a new 0600 file, or is printed once; the public key is printed with the line
 * egp.yaml lists it under (docs/security.md). `egp keys --current` makes none: it names the public
 * half of the key EGP_SIGNING_KEY holds, and says whether egp.yaml trusts it.
 */
export function registerKeysCommand(program: Command): void {
  program
    .command("keys")
    .description(
      "make a key pair that signs the release store's records (EGP_SIGNING_KEY, releases.trustedKeys)",
    )
    .option("--out <file>", "write the private key to this new file (0600) instead of printing it")
    .option("--current", "make no key: print EGP_SIGNING_KEY's public key and whether egp.yaml trusts it")
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<KeysFlags>();
      if (flags.current) {
        process.stdout.write(`${(await describeCurrent(flags.dir)).join("\n")}\n`);
        return;
      }
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
