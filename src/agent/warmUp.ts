import type { Activity } from "../runtime/activity.js";

/** One piece of background loading. */
export type WarmUpStep = () => Promise<unknown>;

/** A one-event stream that needs no network. */
const EVENT_STREAM_URL = "data:text/event-stream,data: {}%0A%0A";

/**
 * Runs an event stream through fetch, which the SDK makes its requests with: Node compiles fetch
 * (undici) and web streams on first use, ~50-100 ms that would otherwise fall on the first model request.
 */
async function warmUpFetch(): Promise<void> {
  const response = await fetch(EVENT_STREAM_URL);
  await response.body?.pipeTo(new WritableStream());
}

/**
 * What a turn needs, in the order turns need it: the agent loop and the openai SDK, then fetch (every turn), then command
 * support (execa, the first command) and the shell parser (its decision). Each step is one `import()` or request, the finest grain
 * Node offers, but the first: the agent loop and the SDK load together, as a step of its own would
 * wait a quiet spell of its own before the SDK.
 */
export const AGENT_STEPS: readonly WarmUpStep[] = [
  () => Promise.all([import("./turnRunner.js"), import("../vendor/openai.js")]),
  warmUpFetch,
  () => import("./exec/processSession.js"),
  () => import("./safety/shellParser.js").then((parser) => parser.preloadShellParser()),
];

/**
 * How long the server must have had nothing to do before a step starts. A step keeps the event loop
 * and the I/O threads busy for ~100 ms, so a request arriving meanwhile waits; clients that send
 * requests back to back never see that, and one that pauses (a user typing the first message, a
 * resume response draining to the client) gets the modules loaded before its first turn needs them.
 */
export const WARM_UP_QUIET_MS = 100;

/**
 * Loads what a first turn needs in the background once a thread is loaded, so start-up and idle
 * memory stay lean and the first turn does not pay for the loading. Each step waits for a quiet
 * spell; a turn that needs a module before its step ran loads it itself (the same import).
 */
export class AgentWarmUp {
  private requested = false;

  constructor(
    private readonly activity: Activity,
    private readonly steps: readonly WarmUpStep[] = AGENT_STEPS,
    private readonly quietMs: number = WARM_UP_QUIET_MS,
  ) {}

  /** Starts the warm-up (the first call only). */
  request(): void {
    if (this.requested) return;
    this.requested = true;
    void this.run();
  }

  private async run(): Promise<void> {
    for (const step of this.steps) {
      await this.activity.quiet(this.quietMs);
      // A failed step is the turn's to report, when it needs the module or the shell itself; one that throws at once is caught too.
      await Promise.resolve().then(step).catch(() => undefined);
    }
  }
}
