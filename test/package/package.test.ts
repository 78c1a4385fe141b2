import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { egp, ROOT } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * egp as a user installs it: the tarball `npm pack` makes (from the built dist/), unpacked into an
 * empty project. `npm install --offline <tarball>` cannot run here: npm's cache holds the
 * dependencies' tarballs from `npm ci` but not their registry metadata, which an install without a
 * lockfile needs (ENOTCACHED). So the test unpacks the tarball as npm would into node_modules/egp
 * and gives it the project's own node_modules as its dependencies (a symlink). What is under test
 * is the package itself: what it ships, its `exports`, its types and its bin.
 */

const run = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const NODE20 = "/usr/bin/node";

let tarball = "";
let files: string[] = [];
let consumer = "";

beforeAll(async () => {
  const out = await testdir({});
  const packed = await run("npm", ["pack", "--json", "--pack-destination", out], { cwd: ROOT });
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  if (!info) throw new Error(`npm pack printed no package: ${packed.stdout}`);
  tarball = join(out, info.filename);
  files = info.files.map((f) => f.path);

  consumer = await testdir({
    "package.json": '{ "name": "consumer", "private": true, "type": "module" }\n',
    "tsconfig.json": JSON.stringify({
      compilerOptions: {
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        noEmit: true,
        types: [],
      },
      files: ["consumer.ts"],
    }),
  });
  const installed = join(consumer, "node_modules", "egp");
  await mkdir(installed, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
  await symlink(join(ROOT, "node_modules"), join(installed, "node_modules"), "dir");
}, 60_000);

describe("the published package", () => {
  it("ships the licence, the compiled library with its types and the launcher, and no TypeScript sources", () => {
    expect(files).toEqual(
      expect.arrayContaining(["LICENSE", "package.json", "bin/egp.js", "dist/index.js", "dist/index.d.ts"]),
    );
    expect(files.filter((f) => f.startsWith("src/"))).toEqual([]);
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
  });

  it('lets a program `import { createClient } from "egp"`', async () => {
    await writeFile(
      join(consumer, "consumer.mjs"),
      'import { createClient, PlatformError } from "egp";\nconsole.log(typeof createClient, typeof PlatformError);\n',
    );
    const result = await run(process.execPath, ["consumer.mjs"], { cwd: consumer });
    expect(result.stdout).toBe("function function\n");
  });

  it("gives TypeScript the library's types (not any)", async () => {
    await writeFile(
      join(consumer, "consumer.ts"),
      [
        'import { createClient, type PlatformClient } from "egp";',
        "export const make: (input: Parameters<typeof createClient>[0]) => PlatformClient = createClient;",
        "// @ts-expect-error createClient is a function, which only a real declaration knows",
        "export const wrong: number = createClient;",
        "",
      ].join("\n"),
    );
    // tsc exits non-zero (and run rejects with its messages) on any type error.
    const result = await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: consumer });
    expect(result.stdout).toBe("");
  });

  it("runs the installed bin from dist/ and prints its version", async () => {
    const result = await run(
      process.execPath,
      [join(consumer, "node_modules", "egp", "bin", "egp.js"), "--version"],
      {
        cwd: consumer,
      },
    );
    expect(result.stdout).toBe(`${VERSION}\n`);
  });
});

describe("egp --version", () => {
  it.each([["--version"], ["-V"]])("%s prints the package's version, exit 0", async (flag) => {
    expect(await egp([flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });
});

/** The machine's own older Node, when it has one (the CI image ships Node 20 as /usr/bin/node). */
const OLD_NODE = existsSync(NODE20) ? execFileSync(NODE20, ["--version"], { encoding: "utf8" }).trim() : "";
const OLD = OLD_NODE !== "" && Number(OLD_NODE.slice(1).split(".")[0]) < 24;

describe.skipIf(!OLD)(`egp on an older Node (${NODE20} ${OLD_NODE})`, () => {
  it("says in one line which Node it needs, exit 1, no stack", async () => {
    await expect(run(NODE20, [join(ROOT, "bin", "egp.js"), "--version"])).rejects.toMatchObject({
      code: 1,
      stdout: "",
      stderr: `egp needs Node.js 24 or later; found ${OLD_NODE}\n`,
    });
  });
});
