let warming: Promise<unknown> | undefined;

/**
 * Loading the SDK blocks the event loop for ~100 ms; started at once it would hold up the response
 * that loaded the thread (a resumed long thread's response is megabytes still draining to the
 * client). Shortly after, the client is reading, not waiting.
 */
const WARM_UP_DELAY_MS = 100;

/**
 * Loads what a first turn needs (the openai SDK, command support) in the background once a thread
 * is loaded: start-up and idle memory stay lean, and the first turn does not pay for the loading.
 * A turn that starts sooner loads them itself.
 */
export function warmUpAgent(): void {
  warming ??= new Promise((resolve) => setTimeout(resolve, WARM_UP_DELAY_MS).unref()).then(() =>
    Promise.all([import("openai"), import("./exec/processSession.js")]).catch(() => undefined),
  );
}
