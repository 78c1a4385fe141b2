import { execFile, execFileSync } from "node:child_process";
import { cp, symlink, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./cli.ts";
import { type FileTree, testdir } from "./testdir.ts";

/*
 * egp as a user installs it: packed by `npm pack` from a fresh copy of the repository (no dist/, as
 * a clone has none, so the pack's own build runs), and the tarball installed with npm into an empty
 * project of the test's files.
 */

export const run = promisify(execFile);
/** What a clone has that the build and the package need; dist/ is left out on purpose. */
const SHIPPED = /^(src|bin|schema|scripts)\/|^(package\.json|tsconfig(\.build)?\.json|LICENSE|README\.md)$/;
export const npmEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };

/** Packs egp from a fresh copy of the repository; the tarball's path and the files it holds. */
export async function packEgp(): Promise<{ tarball: string; files: string[] }> {
  const clone = await testdir({});
  const tracked = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter((file) => SHIPPED.test(file) && !file.endsWith(".test.ts"));
  await Promise.all(tracked.map((file) => cp(join(ROOT, file), join(clone, file))));
  // The build the pack runs needs the repository's packages; the link goes once it has run, so that
  // nothing that later removes the copy can reach the repository's own node_modules through it.
  const modules = join(clone, "node_modules");
  await symlink(join(ROOT, "node_modules"), modules, "dir");
  const out = await testdir({});
  const packed = await run("npm", ["pack", "--json", "--pack-destination", out], {
    cwd: clone,
    env: npmEnv,
  }).finally(() => unlink(modules));
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as {
    filename: string;
    files: { path: string }[];
  }[];
  if (!info) throw new Error(`npm pack printed no package: ${packed.stdout}`);
  return { tarball: join(out, info.filename), files: info.files.map((file) => file.path) };
}

/** A project of `tree` (a package.json is added) with the packed egp installed; its folder. */
export async function installPacked(tarball: string, tree: FileTree): Promise<string> {
  const consumer = await testdir({
    "package.json": '{ "name": "egp-consumer", "private": true, "type": "module" }\n',
    ...tree,
  });
  // The npm cache holds egp's dependencies; the registry is asked only for what it lacks.
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], {
    cwd: consumer,
    env: npmEnv,
  });
  return consumer;
}
