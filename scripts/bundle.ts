// The CLI as a few files: dist/bundle/, made from tsc's dist/ by `npm run build`, and what
// bin/egp.js runs when it runs the built CLI. Loading ~400 modules one by one (resolving, reading
// and linking each) took about a fifth of a warm `egp plan`'s time; the bundle loads a handful.
//
// Bundled: egp's own code and the libraries that are plain modules (zod, commander, js-yaml).
// Left to Node: what finds files at run time (pino starts its transports on worker threads by
// path; undici, yaml and yauzl are loaded with createRequire when needed; fastify and its plugins
// for the emulator), and Node's builtins. dist/ itself stays as tsc made it: it is the library the
// package exports, and the manifest cache's fingerprint hashes its files.
import { rmSync } from "node:fs";
import { rolldown } from "rolldown";

const BUNDLED = new Set(["zod", "commander", "js-yaml"]);
const OUT = "dist/bundle";

function packageOf(id: string): string {
  const parts = id.split("/");
  return id.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? id);
}

/** A bare import (`zod`, `pino/file`) is Node's to load unless its package is bundled. */
const external = (id: string): boolean => {
  if (id.startsWith(".") || id.startsWith("/") || id.startsWith("\0")) return false;
  return !BUNDLED.has(packageOf(id));
};

rmSync(OUT, { recursive: true, force: true });
const build = await rolldown({
  input: { main: "dist/cli/main.js" },
  platform: "node",
  external,
  logLevel: "warn",
});
await build.write({
  dir: OUT,
  format: "esm",
  entryFileNames: "[name].js",
  chunkFileNames: "[name]-[hash].js",
  // The error family (the table, the base class, the CLI's ExitError) is imported by every stage
  // and command: one small chunk, where automatic splitting made one per set of its importers.
  codeSplitting: { groups: [{ name: "errors", test: /[\\/]dist[\\/](?:errors[\\/]|cli[\\/]errors\.js$)/ }] },
});
await build.close();
