import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { join } from "node:path";
import { FIXED_CLOCK_VARIABLE } from "./fixed-clock.ts";
import { type FileTree, testdir } from "./testdir.ts";

/* The egp binary, run as a user runs it: Node 24 (this process's node) on bin/egp.js. */

export const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "egp.js");
const FIXED_CLOCK = join(ROOT, "test", "helpers", "fixed-clock.ts");

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  /** The only variables the child sees besides PATH, so that nothing of the machine leaks in. */
  env?: Record<string, string>;
  /** The instant the child's clock starts at (fixed-clock.ts); the machine's time when not given. */
  now?: Date | string;
}

/** Node's arguments and the variables that start a child's clock at `now`. */
function clockOf(now: RunOptions["now"]): { args: string[]; env: Record<string, string> } {
  if (now === undefined) return { args: [], env: {} };
  const at = typeof now === "string" ? now : now.toISOString();
  return { args: ["--import", FIXED_CLOCK], env: { [FIXED_CLOCK_VARIABLE]: at } };
}

export function egp(args: readonly string[], options: RunOptions = {}): Promise<Run> {
  const clock = clockOf(options.now);
  const env = { PATH: process.env.PATH ?? "", ...options.env, ...clock.env };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...clock.args, BIN, ...args],
      { cwd: options.cwd ?? ROOT, env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function yamlFiles(folder: string): FileTree {
  const tree: FileTree = {};
  for (const name of readdirSync(join(ROOT, folder))
    .filter((n) => n.endsWith(".yaml"))
    .sort())
    tree[`${folder}/${name}`] = readFileSync(join(ROOT, folder, name), "utf8");
  return tree;
}

/**
 * The project's own example repository (environments on embedded demo-dev and demo-prod, and the
 * manifests), as a file tree to write into a temp directory. `persist: false` drops the `?data=`
 * of the environments, so that every run starts from the seed.
 */
export function exampleTree(options: { manifests?: boolean; persist?: boolean } = {}): FileTree {
  const environments = yamlFiles("environments");
  if (options.persist === false) {
    for (const [path, text] of Object.entries(environments))
      environments[path] = text.replace(/\?data=\S+/, "");
  }
  return { ...environments, ...(options.manifests === false ? {} : yamlFiles("manifests")) };
}

/**
 * The example repository with local-dev and local-prod pointed at emulators a test runs, logged
 * into with `${EGP_TEST_PASSWORD}`; `concurrency` replaces the environments' limit (1 runs steps
 * one at a time, in plan order); `quick` lifts the request rate cap and shortens the verification's
 * interval (QUICK, below).
 */
export function exampleOnEmulators(
  urls: { dev: string; prod: string },
  options: { concurrency?: number; quick?: boolean } = {},
): Promise<string> {
  const tree = exampleTree();
  for (const [env, url] of [
    ["local-dev", urls.dev],
    ["local-prod", urls.prod],
  ] as const) {
    const path = `environments/${env}.yaml`;
    let text = (tree[path] ?? "").replace(/^url: .*$/m, `url: ${url}`).replace(
      /^instance: .*$/m,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: manifest text, not a template.
      "instance: Default\nauth: { username: sysadmin, password: '${EGP_TEST_PASSWORD}' }",
    );
    if (options.concurrency !== undefined)
      text = text.replace(/concurrency: \d+/, `concurrency: ${options.concurrency}`);
    if (options.quick)
      text = `${text.replace(/requestsPerSecond: \d+/, "requestsPerSecond: 0")}${QUICK_VERIFY}\n`;
    tree[path] = text;
  }
  return testdir(tree);
}

/*
 * An emulator a test starts is reached over http, as a real instance is, so egp paces it as one: at
 * most 10 requests a second (the default cap) and 2 s between the two equal reads of a verification.
 * The emulator needs neither, as an embedded one doesn't (connect.ts lifts the cap for those,
 * verify-settings.ts shortens their interval); a test whose point is neither the cap nor the
 * interval passes these lines to environmentFile, or `quick` to exampleOnEmulators.
 */
/** No request rate cap. */
export const UNCAPPED = "limits: { requestsPerSecond: 0 }";
/** The embedded emulator's interval between the two equal reads of a verification. */
export const QUICK_VERIFY = "verify: { interval: 200ms }";
/** Both, for a file with no `limits` or `verify` of its own. */
export const QUICK = [UNCAPPED, QUICK_VERIFY] as const;

/** An environment file for an emulator at `url`, logged into with `${EGP_TEST_PASSWORD}`. */
export function environmentFile(url: string, extra: readonly string[] = []): string {
  return [
    `url: ${url}`,
    "instance: Default",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: manifest text, not a template.
    "auth: { username: sysadmin, password: '${EGP_TEST_PASSWORD}' }",
    ...extra,
    "",
  ].join("\n");
}

/** The lines of a CLI's stderr; a user error is exactly one, with no stack. */
export function lines(text: string): string[] {
  return text.split("\n").filter((line) => line !== "");
}

/**
 * Makes this test process use the local key the CLI children use, for the records and journals
 * it writes for them: the children run without HOME, so their home is the account's (from the
 * password file), whatever HOME the test runs with.
 */
export function shareChildrenKey(): void {
  process.env.XDG_CONFIG_HOME = join(userInfo().homedir, ".config");
}

/**
 * The example's package manifest and a release pipeline over three emulators, each paced QUICK:
 * dev builds release `name`, test runs it, and prod runs it once it is verified on test.
 */
export async function releasePipelineFiles(
  urls: { dev: string; test: string; prod: string },
  name: string,
): Promise<Record<string, string>> {
  return {
    "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
    "environments/dev.yaml": environmentFile(urls.dev, QUICK),
    "environments/test.yaml": environmentFile(urls.test, [`release: ${name}`, ...QUICK]),
    "environments/prod.yaml": environmentFile(urls.prod, [
      `release: ${name}`,
      "requiresVerifiedOn: [test]",
      ...QUICK,
    ]),
  };
}
