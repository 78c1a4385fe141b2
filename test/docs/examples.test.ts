import { spawn } from "node:child_process";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.ts";
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
 *   `<!-- egp:test exit=N -->` expects exit code N (0 otherwise). HOME is a temp folder, so `~/my-grc`
 *   lands there, and GRC_URL, GRC_INSTANCE, GRC_USER and GRC_PASSWORD name an emulator on the
 *   demo-prod seed over HTTP: the README's "First hour" runs as a user's own instance would.
 * - `output` in the marker (`<!-- egp:test exit=2 output -->`) also checks the plain fence right
 *   after the block: each of its lines, but for `...` alone, must be a line the block printed, in
 *   that order; a `...` inside a line stands for any text. Timestamps and ports are masked.
 */

interface Block {
  file: string;
  line: number;
  lang: "yaml" | "sh";
  text: string;
  exit: number;
  /** The output shown right after the block, when the marker asks for it to be checked. */
  output?: string[];
}

const MARKER = /^<!-- egp:test(?: exit=(\d+))?( output)? -->$/;

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
    const end = closingFence(lines, index + 1);
    if (end < 0) throw new Error(`${file}:${index + 2}: the fence is not closed`);
    blocks.push({
      file,
      line: index + 2,
      lang: fence[1] as Block["lang"],
      text: `${lines.slice(index + 2, end).join("\n")}\n`,
      exit: Number(marker[1] ?? 0),
      ...(marker[2] ? { output: shownOutput(file, lines, end) } : {}),
    });
  });
  return blocks;
}

function closingFence(lines: string[], open: number): number {
  return lines.findIndex((text, at) => at > open && text.startsWith("```"));
}

/** The lines of the plain fence that follows a block's closing fence (blank lines between allowed). */
function shownOutput(file: string, lines: string[], end: number): string[] {
  let open = end + 1;
  while ((lines[open] ?? "x").trim() === "") open++;
  const close = lines[open] === "```" ? closingFence(lines, open) : -1;
  if (close < 0)
    throw new Error(
      `${file}:${end + 1}: <!-- egp:test output --> needs a plain \`\`\` fence right after its block`,
    );
  return lines.slice(open + 1, close);
}

/** What differs from run to run: timestamps and ports. */
function masked(line: string): string {
  return line
    .trimEnd()
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/(127\.0\.0\.1|localhost):\d+/g, "$1:<port>");
}

/** The shown lines (but `...` alone) that the run did not print, in the order shown. */
function missingLines(shown: string[], printed: string): string[] {
  const out = printed.split("\n").map(masked);
  const missing: string[] = [];
  let at = 0;
  for (const line of shown.map(masked)) {
    if (line.trim() === "...") continue;
    const pattern = new RegExp(`^${line.split("...").map(escapeRegExp).join(".*")}$`);
    const found = out.findIndex((text, i) => i >= at && pattern.test(text));
    if (found < 0) missing.push(line);
    else at = found + 1;
  }
  return missing;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
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

function runSh(
  text: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", text], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

// The README's own instance: what a user's GRC_* variables would name.
let instance: Awaited<ReturnType<typeof startEmulator>>;
beforeAll(async () => {
  instance = await startEmulator({ seed: "demo-prod", port: 0 });
});
afterAll(async () => {
  await instance?.close();
});

async function shellEnv(bin: string): Promise<Record<string, string>> {
  return {
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    HOME: await testdir({}),
    GRC_URL: instance.url,
    GRC_INSTANCE: "Default",
    GRC_USER: "sysadmin",
    GRC_PASSWORD: "Password1!",
    // A user's git knows who they are; the temp HOME has no ~/.gitconfig.
    GIT_AUTHOR_NAME: "Docs Test",
    GIT_AUTHOR_EMAIL: "docs@example.com",
    GIT_COMMITTER_NAME: "Docs Test",
    GIT_COMMITTER_EMAIL: "docs@example.com",
  };
}

describe("examples in the docs", () => {
  it("are marked where they are meant to run: the README's real instance and its commands", () => {
    const readme = allBlocks.filter((block) => block.file === "README.md");
    expect(readme.filter((block) => block.lang === "yaml").length).toBeGreaterThanOrEqual(1);
    expect(readme.filter((block) => block.lang === "sh").length).toBeGreaterThanOrEqual(3);
    // The First hour's blocks: its own repository, status, export and plan, a change planned.
    expect(
      readme.filter((block) => block.output && /~\/my-grc/.test(block.text)).length,
    ).toBeGreaterThanOrEqual(4);
  });

  it("refuses a marker that is not on the line before a yaml or sh fence", () => {
    expect(() => markedBlocks("x.md", "<!-- egp:test -->\n```json\n{}\n```\n")).toThrow(
      "x.md:1: <!-- egp:test --> must come right before a yaml or sh fence",
    );
  });

  it("refuses `output` on a block that no plain fence follows", () => {
    expect(() =>
      markedBlocks("x.md", "<!-- egp:test output -->\n```sh\negp\n```\n\n```yaml\na: 1\n```\n"),
    ).toThrow("x.md:4: <!-- egp:test output --> needs a plain ``` fence right after its block");
  });

  it("reads the output shown after a block, and checks it against what the block printed", () => {
    const [block] = markedBlocks(
      "x.md",
      "<!-- egp:test exit=2 output -->\n```sh\negp status\n```\n\n```\nprod  drifted\n...\nlast ... 2026-01-01T00:00:00.000Z\n```\n",
    );
    expect(block).toMatchObject({
      exit: 2,
      output: ["prod  drifted", "...", "last ... 2026-01-01T00:00:00.000Z"],
    });
    const shown = block?.output ?? [];
    expect(missingLines(shown, "head\nprod  drifted  \nx\nlast install 2026-11-26T19:44:33.944Z\n")).toEqual(
      [],
    );
    // In the order shown, each line whole: a run that printed them otherwise fails.
    expect(missingLines(shown, "last install 2026-11-26T19:44:33.944Z\nprod  drifted\n")).toEqual([
      "last ... <time>",
    ]);
    expect(missingLines(shown, "prod  drifted (1)\nlast install\n")).toEqual([
      "prod  drifted",
      "last ... <time>",
    ]);
    expect(missingLines(["at http://127.0.0.1:8080/x"], "at http://127.0.0.1:41234/x")).toEqual([]);
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
      const env = await shellEnv(await shims());
      for (const block of allBlocks.filter((b) => b.file === file && b.lang === "sh")) {
        const run = await runSh(block.text, dir, env);
        const where = `${block.file}:${block.line}\n${block.text}\n${run.output}`;
        expect(run.code, where).toBe(block.exit);
        if (block.output) expect(missingLines(block.output, run.output), where).toEqual([]);
      }
    },
    120_000,
  );
});
