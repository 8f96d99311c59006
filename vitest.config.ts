import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    // The Codex reference schema, found or generated once before any test: conformance never switches off.
    // skipSummary.ts: one line at the end for tests skipped because a system program is missing.
    globalSetup: ["test/support/referenceSchemaSetup.ts", "test/support/skipSummary.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Three test files at once on a 2-core machine: end-to-end tests spend much of their time
    // waiting on servers, model mocks and shells, so a third file fills the cores. `npm test` took
    // 98–116 s idle against 123–131 s with two, and passed under `npm run test:load`; more files at
    // once starved waits past their timeouts.
    maxWorkers: 3,
    // Test files share their worker's modules: a fresh module graph per file (ajv's compiled
    // reference schema, the protocol's zod schemas) cost about a fifth of the suite's time. Shared
    // test modules register their clean-ups through test/support/afterEachTest.ts, and no test
    // file changes process-wide state (environment, cwd, timers) without restoring it.
    isolate: false,
  },
});
