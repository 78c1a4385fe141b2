import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";

/** Relative path → file content. */
export type FileTree = Record<string, string>;

const made: string[] = [];

afterAll(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Writes an inline file tree into a fresh temp directory (removed after the test file) and returns its path. */
export async function testdir(tree: FileTree): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "egp-testdir-"));
  made.push(dir);
  for (const [path, text] of Object.entries(tree)) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  }
  return dir;
}
