import { defineConfig } from "vitest/config";

/*
 * Two projects. Unit and integration files share their workers' module cache (no isolation): they
 * import the same heavy modules (zod schemas, fastify, the emulator), and loading them once per
 * worker instead of once per file is most of what isolation costs. End-to-end files, and the few
 * files that replace modules (vi.mock), run isolated.
 */
const ISOLATED = [
  "test/e2e/**/*.test.ts",
  // vi.mock of a module (the lock file, node:fs).
  "src/apply/lock-wait.test.ts",
  "test/apply/artifacts-store.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default on 2 cores is one file at a time; most files here wait on emulators, child
    // processes and jobs rather than on the CPU, so three at once halve the suite's wall time.
    maxWorkers: 3,
    projects: [
      {
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts"],
          exclude: ISOLATED,
          isolate: false,
        },
      },
      { test: { name: "isolated", include: ISOLATED } },
    ],
  },
});
