let warming: Promise<unknown> | undefined;

/**
 * Loads what a first turn needs (the openai SDK, command support) in the background once a thread
 * is loaded: start-up and idle memory stay lean, and the first turn does not pay for the loading.
 * Loading blocks the event loop for ~100 ms, so after a large response (a resumed long thread's,
 * megabytes still draining to the client) the caller waits `delayMs` first; a turn that starts
 * sooner loads the modules itself.
 */
export function warmUpAgent(delayMs = 0): void {
  warming ??= new Promise((resolve) => (delayMs > 0 ? setTimeout(resolve, delayMs).unref() : setImmediate(resolve))).then(() =>
    Promise.all([import("openai"), import("./exec/processSession.js")]).catch(() => undefined),
  );
}
