import { spawn } from "node:child_process";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateRepository } from "../../src/manifest/index.ts";
import { exampleTree, ROOT } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Docs that run (docs/architecture.md, "Examples in the docs"): every fenced `yaml` or `sh` block of
 * README.md and docs/*.md marked with `<!-- egp:test -->` on the line before its fence is run.
 * - yaml: validated as egp validates (offline, no variables needed) next to the example's
 *   environments and two stand-ins named as the docs name them, `dev` and `prod` (prod promotes from
 *   dev). A document with a `kind` is a manifest; anything else is the environment file `prod`.
 * - sh: run by bash, in order, in one copy of the example per file (its embedded emulators keep
 *   their state in .egp/ from block to block), with `egp` and `npm run egp --` running bin/egp.js.
 *   `<!-- egp:test exit=N -->` expects exit code N (0 otherwise).
 */

interface Block {
  file: string;
  line: number;
  lang: "yaml" | "sh";
  text: string;
  exit: number;
}

const MARKER = /^<!-- egp:test(?: exit=(\d+))? -->$/;

async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(join(ROOT, "docs"))).filter((name) => name.endsWith(".md")).sort();
  return ["README.md", ...docs.map((name) => `docs/${name}`)];
}

/** The marked blocks of one markdown file; a marker not followed by a yaml or sh fence is an error. */
function markedBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  lines.forEach((line, index) => {
    const marker = MARKER.exec(line.trim());
    if (!marker) return;
    const fence = /^```(yaml|sh)\s*$/.exec(lines[index + 1] ?? "");
    if (!fence)
      throw new Error(`${file}:${index + 1}: <!-- egp:test --> must come right before a yaml or sh fence`);
    const end = lines.findIndex((text, at) => at > index + 1 && text.startsWith("```"));
    if (end < 0) throw new Error(`${file}:${index + 2}: the fence is not closed`);
    blocks.push({
      file,
      line: index + 2,
      lang: fence[1] as Block["lang"],
      text: `${lines.slice(index + 2, end).join("\n")}\n`,
      exit: Number(marker[1] ?? 0),
    });
  });
  return blocks;
}

const allBlocks = await Promise.all(
  (await markdownFiles()).map(async (file) => markedBlocks(file, await readFile(join(ROOT, file), "utf8"))),
).then((lists) => lists.flat());

/** The example's environments (without data files), plus `dev` and `prod` as the docs name them. */
function environments(): Array<{ path: string; text: string }> {
  const tree = exampleTree({ persist: false, manifests: false });
  const dev = tree["environments/local-dev.yaml"] ?? "";
  const prod = (tree["environments/local-prod.yaml"] ?? "").replace(
    "packagesFrom: local-dev",
    "packagesFrom: dev",
  );
  return [
    ...Object.entries(tree).map(([path, text]) => ({ path, text })),
    { path: "environments/dev.yaml", text: dev },
    { path: "environments/prod.yaml", text: prod },
  ];
}

function validateYaml(block: Block): string[] {
  const name = `${block.file.replace(/[/.]/g, "-")}-${block.line}.yaml`;
  const manifest = /^kind:/m.test(block.text);
  const envs = environments().filter((env) => manifest || env.path !== "environments/prod.yaml");
  const result = validateRepository(
    {
      dir: ROOT,
      environments: manifest ? envs : [...envs, { path: "environments/prod.yaml", text: block.text }],
      manifests: manifest ? [{ path: `manifests/${name}`, text: block.text }] : [],
    },
    // As `egp validate` without --env: no secret needed. Files an example names (a CA) are not here.
    { variables: {}, unsetVariables: "keep", fileExists: () => true },
  );
  return result.ok
    ? []
    : result.errors.map((issue) => `${issue.file}:${issue.line}:${issue.column} ${issue.message}`);
}

/** A folder of stand-ins: `egp`, and `npm` for `npm run egp [--silent] -- …` as the checkout has it. */
async function shims(): Promise<string> {
  const dir = await testdir({});
  const bin = join(dir, "bin");
  await mkdir(bin);
  const egp = `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "bin", "egp.js")}" "$@"\n`;
  const npm = [
    "#!/bin/sh",
    'if [ "$1" = run ] && [ "$2" = egp ]; then',
    "  shift 2",
    '  [ "$1" = --silent ] && shift',
    '  [ "$1" = -- ] && shift',
    '  exec egp "$@"',
    "fi",
    'echo "docs test: only \\`npm run egp -- …\\` runs here, not npm $*" >&2',
    "exit 127",
    "",
  ].join("\n");
  await writeFile(join(bin, "egp"), egp);
  await writeFile(join(bin, "npm"), npm);
  await chmod(join(bin, "egp"), 0o755);
  await chmod(join(bin, "npm"), 0o755);
  return bin;
}

function runSh(text: string, cwd: string, bin: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", text], {
      cwd,
      env: { PATH: `${bin}:${process.env.PATH ?? ""}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

describe("examples in the docs", () => {
  it("are marked where they are meant to run: the README's real instance and its commands", () => {
    const readme = allBlocks.filter((block) => block.file === "README.md");
    expect(readme.filter((block) => block.lang === "yaml").length).toBeGreaterThanOrEqual(1);
    expect(readme.filter((block) => block.lang === "sh").length).toBeGreaterThanOrEqual(3);
  });

  it("refuses a marker that is not on the line before a yaml or sh fence", () => {
    expect(() => markedBlocks("x.md", "<!-- egp:test -->\n```json\n{}\n```\n")).toThrow(
      "x.md:1: <!-- egp:test --> must come right before a yaml or sh fence",
    );
  });

  it.each(
    allBlocks.filter((block) => block.lang === "yaml").map((block) => [`${block.file}:${block.line}`, block]),
  )("yaml %s is valid", (_where, block) => {
    expect(validateYaml(block as Block)).toEqual([]);
  });

  const shFiles = [...new Set(allBlocks.filter((block) => block.lang === "sh").map((block) => block.file))];
  it.each(shFiles)(
    "the sh blocks of %s run against the emulator",
    async (file) => {
      const dir = await testdir(exampleTree());
      const bin = await shims();
      for (const block of allBlocks.filter((b) => b.file === file && b.lang === "sh")) {
        const run = await runSh(block.text, dir, bin);
        expect(run.code, `${block.file}:${block.line}\n${block.text}\n${run.output}`).toBe(block.exit);
      }
    },
    60_000,
  );
});
