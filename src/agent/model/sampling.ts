import { setTimeout as sleep } from "node:timers/promises";
import type { ModelClient, ModelEvent, ModelRequest } from "./modelClient.js";
import { ModelError } from "./modelError.js";
import type { ProviderSettings } from "./providers.js";

/** Codex's backoff: 200 ms doubling per attempt, ±10 % jitter. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  return 200 * 2 ** (attempt - 1) * (0.9 + random() * 0.2);
}

/** How long to wait before retry `attempt` (from 1): the server's Retry-After when it sent one. */
export function retryDelayMs(error: ModelError, attempt: number, random?: () => number): number {
  return error.options.retryAfterMs ?? backoffMs(attempt, random);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw signal.reason;
  }
}

/** How often a call that failed before its stream opened is sent again, silently. */
function requestRetries(error: ModelError, provider: ProviderSettings): number {
  if (error.kind === "request") return provider.requestMaxRetries;
  // Nothing listens on this machine: one quick retry covers a local server that was restarting.
  if (error.kind === "refused") return Math.min(1, provider.requestMaxRetries);
  return 0;
}

/** How often the turn samples again after `error`, announcing each retry ("Reconnecting... n/N"). */
export function announcedRetries(error: ModelError, provider: ProviderSettings): number {
  return error.kind === "request" || error.kind === "stream" ? provider.streamMaxRetries : 0;
}

/**
 * One model call, its events in batches as they arrive: HTTP-level failures before the stream
 * opens are retried silently up to `request_max_retries`; a stream that yields nothing for
 * `stream_idle_timeout_ms` fails as a stream error (the caller decides whether to retry it, and
 * says so).
 */
export async function* sample(
  client: ModelClient,
  request: ModelRequest,
  provider: ProviderSettings,
  signal: AbortSignal,
): AsyncIterable<readonly ModelEvent[]> {
  await client.prepare();
  for (let attempt = 0; ; attempt++) {
    const idle = new AbortController();
    const combined = AbortSignal.any([signal, idle.signal]);
    const timer = setTimeout(() => {
      idle.abort(
        new ModelError(`the model stream was idle for ${provider.streamIdleTimeoutMs} ms`, "stream", {
          responseStreamDisconnected: { httpStatusCode: null },
        }),
      );
    }, provider.streamIdleTimeoutMs);
    let yielded = false;
    try {
      for await (const events of client.stream(request, combined)) {
        yielded = true;
        // Restarts the countdown without a new timer: this runs for every batch.
        timer.refresh();
        yield events;
      }
      return;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (!(error instanceof ModelError) || yielded || attempt >= requestRetries(error, provider)) throw error;
      await pause(retryDelayMs(error, attempt + 1), signal);
    } finally {
      clearTimeout(timer);
    }
  }
}
