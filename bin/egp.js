#!/usr/bin/env -S node --max-semi-space-size=2
// In a checkout the TypeScript sources run directly (Node 24 strips types); a published package
// ships only the compiled dist/.
import { existsSync } from "node:fs";

const source = new URL("../src/cli/main.ts", import.meta.url);
const entry =
  existsSync(source) && !process.env.EGP_USE_DIST ? source : new URL("../dist/cli/main.js", import.meta.url);
await import(entry.href);
