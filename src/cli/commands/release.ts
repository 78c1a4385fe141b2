import type { Command } from "commander";
import { buildRelease } from "../../apply/index.ts";
import { localStoreNote, openProjectStore, sharedWithoutKey } from "../../compose/project-store.ts";
import { environmentsInOrder, listReleases } from "../../compose/release-list.ts";
import { releaseCreateEntry, writeAudit } from "../../govern/audit-trail.ts";
import { environmentOf, readRepository, releaseNameProblem, selectManifests } from "../../manifest/index.ts";
import { narrowDesired, parseTargets, printable } from "../../plan/index.ts";
import { ExitError } from "../errors.ts";
import { clientsOf } from "../plan-environment.ts";
import { releaseTable } from "../release-table.ts";
import { type GlobalFlags, repositoryDir, withEnvironments } from "../run.ts";
import { type SelectionFlags, selectionOf, withSelection } from "../selection.ts";
import { ensureStateDir, stateDirOf } from "../state-dir.ts";
import { registerReleaseReject } from "./release-reject.ts";

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
  registerReleaseReject(release);
  release
    .command("list")
    .description(
      "list the releases (releases/*.yaml and the store), newest first, with where each is verified",
    )
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<GlobalFlags>();
      const dir = repositoryDir(flags.dir);
      const repository = await readRepository(dir);
      const store = await openProjectStore(dir);
      const releases = await listReleases(dir, store, environmentsInOrder(repository));
      if (flags.json) {
        for (const listed of releases) process.stdout.write(`${JSON.stringify(listed)}\n`);
        return;
      }
      process.stdout.write(releaseTable(releases, store.location));
    });
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
      const problem = releaseNameProblem(flags.name);
      if (problem) throw new ExitError("EGP_USAGE", `release create: ${problem}`);
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
      await writeAudit(store, releaseCreateEntry(desired.environment, built), say);
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
      const note = await localStoreNote(dir);
      if (note) process.stdout.write(`${note}\n`);
    });
  });
}
