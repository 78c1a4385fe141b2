import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default on 2 cores is one file at a time; most files here wait on emulators, child
    // processes and jobs rather than on the CPU, so three at once halve the suite's wall time.
    maxWorkers: 3,
  },
});
