import type { Command } from "commander";
import { localStoreNote, openProjectStore } from "../../compose/project-store.ts";
import { printable } from "../../plan/index.ts";
import { adoptCreatedRelease, type CreateReleaseOptions, createRelease } from "../../release/create.ts";
import { releaseList } from "../../release/release-list.ts";
import { ExitError } from "../errors.ts";
import { clientsOf } from "../plan-environment.ts";
import { releaseTable } from "../release-table.ts";
import { type GlobalFlags, repositoryDir, withEnvironments } from "../run.ts";
import { type SelectionFlags, selectionOf, withSelection } from "../selection.ts";
import { ensureStateDir, stateDirOf } from "../state-dir.ts";
import { registerReleaseReject } from "./release-reject.ts";

interface ReleaseCreateFlags extends SelectionFlags {
  from?: string;
  name?: string;
  adopt?: string;
}

/*
 * `egp release create --from ENV --name NAME`: builds the Package documents' packages on ENV once,
 * keeps them in the release store and writes releases/NAME.yaml to commit (docs/promotion.md).
 */
/** `--adopt NAME` alone, or `--from` and `--name`. */
function createOrAdopt(flags: ReleaseCreateFlags, options: Omit<CreateReleaseOptions, "from" | "name">) {
  if (flags.adopt !== undefined) {
    if (flags.from !== undefined || flags.name !== undefined)
      throw new ExitError("EGP_USAGE", "release create: --adopt NAME takes no --from or --name");
    return adoptCreatedRelease({
      dir: options.dir,
      name: flags.adopt,
      store: options.store,
      say: options.say,
    });
  }
  for (const [flag, value] of [
    ["--from <env>", flags.from],
    ["--name <name>", flags.name],
  ] as const)
    if (value === undefined) throw new ExitError("EGP_USAGE", `required option '${flag}' not specified`);
  return createRelease({ ...options, from: flags.from as string, name: flags.name as string });
}

export function registerReleaseCommand(program: Command): void {
  const release = program
    .command("release")
    .description("releases: packages built once, promoted as the same bytes");
  registerReleaseReject(release);
  release
    .command("list")
    .description(
      "list the releases (releases/*.yaml and the store), newest first, with where each is verified",
    )
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<GlobalFlags>();
      const dir = repositoryDir(flags.dir);
      const { releases, store } = await releaseList(dir);
      if (flags.json) {
        for (const listed of releases) process.stdout.write(`${JSON.stringify(listed)}\n`);
        return;
      }
      process.stdout.write(releaseTable(releases, store));
    });
  const create = release
    .command("create")
    .description(
      "build the packages of the Package documents on an environment, store them, write releases/NAME.yaml",
    )
    .option("--from <env>", "the environment the packages are built on")
    .option("--name <name>", "the release's name (lower-case letters, digits, '.', '_', '-'); never reused")
    .option(
      "--adopt <name>",
      "write releases/NAME.yaml from the store's record of a create that could not be sure it won (builds nothing)",
    );
  withSelection(create).action(async (_options: unknown, command: Command) => {
    await withEnvironments<ReleaseCreateFlags>(command, async ({ flags, dir, connections }) => {
      const say = (line: string) => process.stderr.write(`${printable(line)}\n`);
      const store = await openProjectStore(dir);
      const { file, release: built } = await createOrAdopt(flags, {
        dir,
        selection: selectionOf(flags),
        open: clientsOf(connections),
        store,
        stateDir: ensureStateDir(stateDirOf(dir)),
        say,
      });
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ file, ...built })}\n`);
        return;
      }
      process.stdout.write(`Release ${built.name} created from ${built.from}: ${file}\n`);
      for (const pkg of built.packages)
        process.stdout.write(
          `${printable(`  ${pkg.name}: sha256 ${pkg.sha256}, ${pkg.size} bytes, ${pkg.objects.length} object(s)`)}\n`,
        );
      process.stdout.write(
        `Commit ${file}, then set 'release: ${built.name}' in the environments that run it.\n`,
      );
      const note = await localStoreNote(dir);
      if (note) process.stdout.write(`${note}\n`);
    });
  });
}
