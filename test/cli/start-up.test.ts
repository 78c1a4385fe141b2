import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commandsFor } from "../../src/cli/command-list.ts";
import { ROOT } from "../helpers/cli.ts";

/* What a run of egp loads: the command it runs, not the others (start-up time is measured in bench/). */

// Logs every module the child resolves, on stderr.
const HOOK = `data:text/javascript,${encodeURIComponent(
  'import { registerHooks } from "node:module"; registerHooks({ resolve(s, c, next) { const r = next(s, c); process.stderr.write("loaded " + r.url + "\\n"); return r; } });',
)}`;

function loadedBy(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", HOOK, join(ROOT, "bin", "egp.js"), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env } },
      (error, _stdout, stderr) => {
        if (error) reject(error);
        else resolve([...stderr.matchAll(/^loaded (\S+)$/gm)].map((match) => match[1] as string));
      },
    );
  });
}

const commandModules = (urls: string[]) =>
  urls.filter((url) => url.includes("/src/cli/commands/")).map((url) => url.replace(/.*\/commands\//, ""));

describe("start-up", () => {
  it("--version loads no command and no zod", async () => {
    const loaded = await loadedBy(["--version"]);
    expect(loaded.length).toBeGreaterThan(0);
    expect(commandModules(loaded)).toEqual([]);
    expect(loaded.filter((url) => url.includes("/zod/"))).toEqual([]);
  });

  it("a command loads its own module, not the others' nor the emulator's server", async () => {
    const loaded = await loadedBy(["--dir", ".", "plan", "--help"]);
    expect(commandModules(loaded)).toEqual(["plan.ts"]);
    expect(loaded.filter((url) => url.endsWith("/src/emulator/server.ts"))).toEqual([]);
  });

  it("plan, drift and validate load neither the apply stage, nor the yaml library, nor the store's index", async () => {
    for (const command of ["plan", "drift", "validate"]) {
      const loaded = await loadedBy(["--dir", ".", command, "--help"]);
      const heavy = loaded.filter(
        (url) =>
          /\/src\/apply\/(?!journal\.ts)/.test(url) ||
          url.includes("/node_modules/yaml/") ||
          url.endsWith("/src/store/index.ts"),
      );
      expect(heavy, command).toEqual([]);
    }
  });

  it("the built CLI runs from its bundle: a few files of egp's and no zod file, not hundreds of modules", async () => {
    // `npm test` builds first (npm run build: tsc, then scripts/bundle.ts).
    const loaded = await loadedBy(["--dir", ".", "plan", "--help"], { EGP_USE_DIST: "1" });
    const ours = loaded.filter((url) => url.includes("/dist/"));
    expect(ours).toContain(`file://${join(ROOT, "dist", "bundle", "main.js")}`);
    expect(ours.filter((url) => !url.includes("/dist/bundle/"))).toEqual([]);
    expect(new Set(ours).size).toBeLessThan(30);
    expect(loaded.filter((url) => url.includes("/node_modules/zod/"))).toEqual([]);
  });

  it("commandsFor: the command named, none for --version, all for help and unknown words", () => {
    const all = commandsFor([]);
    expect(all).toContain("plan");
    expect(all.length).toBeGreaterThan(10);
    expect(commandsFor(["--dir", "plan", "drift", "--env", "x"])).toEqual(["drift"]);
    expect(commandsFor(["--log-level", "debug", "--json", "apply", "plan.json"])).toEqual(["apply"]);
    expect(commandsFor(["--version"])).toEqual([]);
    expect(commandsFor(["help", "plan"])).toEqual(all);
    expect(commandsFor(["plon"])).toEqual(all);
  });
});
