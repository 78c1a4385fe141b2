import type { Command } from "commander";
import { buildRelease } from "../../apply/index.ts";
import { openProjectStore, sharedWithoutKey } from "../../compose/project-store.ts";
import { environmentOf, RELEASE_NAME, readRepository, selectManifests } from "../../manifest/index.ts";
import { narrowDesired, parseTargets, printable } from "../../plan/index.ts";
import { ExitError } from "../errors.ts";
import { clientsOf } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";
import { type SelectionFlags, selectionOf, withSelection } from "../selection.ts";
import { ensureStateDir, stateDirOf } from "../state-dir.ts";

interface ReleaseCreateFlags extends SelectionFlags {
  from: string;
  name: string;
}

/*
 * `egp release create --from ENV --name NAME`: builds the Package documents' packages on ENV once,
 * keeps them in the release store and writes releases/NAME.yaml to commit (docs/promotion.md).
 */
export function registerReleaseCommand(program: Command): void {
  const release = program
    .command("release")
    .description("releases: packages built once, promoted as the same bytes");
  const create = release
    .command("create")
    .description(
      "build the packages of the Package documents on an environment, store them, write releases/NAME.yaml",
    )
    .requiredOption("--from <env>", "the environment the packages are built on")
    .requiredOption(
      "--name <name>",
      "the release's name (lower-case letters, digits, '.', '_', '-'); never reused",
    );
  withSelection(create).action(async (_options: unknown, command: Command) => {
    await withEnvironments<ReleaseCreateFlags>(command, async ({ flags, dir, connections }) => {
      if (!RELEASE_NAME.test(flags.name))
        throw new ExitError(
          `release create: ${JSON.stringify(flags.name)} is not a release name (lower-case letters, digits, '.', '_' or '-', starting with a letter or digit)`,
        );
      const selection = selectionOf(flags);
      const repository = selectManifests(await readRepository(dir), selection.manifests);
      const { state } = environmentOf(repository, flags.from, { buildPackages: true });
      const desired = narrowDesired(state, parseTargets(selection.targets));
      const say = (line: string) => process.stderr.write(`${printable(line)}\n`);
      const store = await openProjectStore(dir);
      const { file, release: built } = await buildRelease({
        dir,
        name: flags.name,
        desired,
        client: await clientsOf(connections)(desired.environment),
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
      const notice = sharedWithoutKey(store);
      if (notice) say(notice);
    });
  });
}
