/**
 * Clean-ups of shared test modules, run after every test by setup.ts. A shared module cannot call
 * vitest's `afterEach` itself: test files share a worker's modules (`isolate: false` in
 * vitest.config.ts), so its hook would be registered for the first file that imports it only.
 */
const hooks: Array<() => unknown> = [];

/** Runs `hook` after every test of every file, in the order registered. */
export function afterEachTest(hook: () => unknown): void {
  hooks.push(hook);
}

/** Runs the registered hooks (setup.ts's `afterEach`); all of them run, and the first failure is thrown. */
export async function runAfterEachTest(): Promise<void> {
  let failure: unknown;
  for (const hook of hooks) {
    try {
      await hook();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}
