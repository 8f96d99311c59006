let warming: Promise<unknown> | undefined;

/**
 * Loads what a first turn needs (the openai SDK, command support) in the background once a thread
 * is loaded: start-up and idle memory stay lean, and the first turn does not pay for the loading.
 */
export function warmUpAgent(): void {
  warming ??= new Promise((resolve) => setImmediate(resolve)).then(() =>
    Promise.all([import("openai"), import("./exec/processSession.js")]).catch(() => undefined),
  );
}
