#!/usr/bin/env -S node --max-semi-space-size=8
// In a checkout the TypeScript sources run directly (Node 24 strips types); a published package
// ships only the compiled dist/.
//
// The Node flag: V8's young generation sized for egp. Node's default lets it grow to tens of MB, and
// `plan` at 10,000 users then peaked at 331 MB; 8 MB semi-spaces: 226–237 MB and no slower; 2 MB:
// 260–273 MB and 0.3–0.6 s more garbage collection (docs/performance.md).
import { existsSync } from "node:fs";
import { enableCompileCache } from "node:module";

// V8's compiled code for egp and its dependencies is kept on disk (the OS temp folder) between runs:
// a CLI started by every CI job and cron drift check pays its ~150 ms of compiling once per machine,
// as npm and TypeScript do. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
enableCompileCache?.();

const source = new URL("../src/cli/main.ts", import.meta.url);
const entry =
  existsSync(source) && !process.env.EGP_USE_DIST ? source : new URL("../dist/cli/main.js", import.meta.url);
await import(entry.href);
