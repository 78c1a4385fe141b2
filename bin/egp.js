#!/usr/bin/env -S node --max-semi-space-size=8
// In a checkout the TypeScript sources run directly (Node 24 strips types); a published package
// ships only the compiled dist/.
//
// The Node flag: V8's young generation sized for egp. Node's default lets it grow to tens of MB,
// which raises a large plan's peak memory for no speed (figures in docs/performance.md).
//
// This file must parse and run on old Node (20) far enough to say which Node egp needs: only
// builtins every supported-or-not Node has are imported statically, and nothing of egp loads before
// the check. A named import of a builtin export that old Node lacks (enableCompileCache) fails while
// linking, before any line runs, with a SyntaxError stack.
import { existsSync } from "node:fs";
import * as nodeModule from "node:module";

const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split(".")[0]);
if (!(major >= REQUIRED_MAJOR)) {
  process.stderr.write(`egp needs Node.js ${REQUIRED_MAJOR} or later; found v${process.versions.node}\n`);
  process.exit(1);
}

// V8's compiled code for egp and its dependencies is kept on disk (the OS temp folder) between runs:
// a CLI started by every CI job and cron drift check pays for compiling once per machine, as npm
// and TypeScript do. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
nodeModule.enableCompileCache?.();

// The built CLI is the bundle of dist/ (scripts/bundle.ts), or dist/ itself when it has none.
const source = new URL("../src/cli/main.ts", import.meta.url);
const bundle = new URL("../dist/bundle/main.js", import.meta.url);
const built = existsSync(bundle) ? bundle : new URL("../dist/cli/main.js", import.meta.url);
const entry = existsSync(source) && !process.env.EGP_USE_DIST ? source : built;
await import(entry.href);
