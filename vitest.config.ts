import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // End-to-end tests mostly wait on child processes and sockets, so more files than cores run well.
    maxWorkers: 4,
  },
});
