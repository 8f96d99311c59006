import { ModelError } from "./modelError.js";
import { SseParser } from "./sseParser.js";

/**
 * The JSON payloads of an event-stream body, one array per network chunk, read as the openai SDK
 * read them: nothing after `[DONE]` counts, a payload carrying `error` is a stream error, data
 * that is not JSON throws its SyntaxError. A failure is thrown after the payloads that preceded it
 * in its chunk. Stopping early cancels the body, which ends the request.
 */
export async function* ssePayloads(body: ReadableStream<Uint8Array> | null): AsyncGenerator<unknown[], void, undefined> {
  if (!body) return;
  let batch: unknown[] = [];
  let done = false;
  const parser = new SseParser((data) => {
    if (done) return;
    if (data.startsWith("[DONE]")) {
      done = true;
      return;
    }
    const payload = JSON.parse(data) as { error?: unknown } | null;
    if (payload?.error) throw payloadError(payload.error);
    batch.push(payload);
  });
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return;
      let failure: { error: unknown } | null = null;
      try {
        parser.push(value);
      } catch (error) {
        failure = { error };
      }
      if (batch.length > 0) {
        const payloads = batch;
        batch = [];
        yield payloads;
      }
      if (failure) throw failure.error;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** A payload's `error` as a stream error, with the message the openai SDK gave it. */
function payloadError(error: unknown): ModelError {
  const message = (error as { message?: unknown }).message;
  const text = message ? (typeof message === "string" ? message : JSON.stringify(message)) : JSON.stringify(error);
  return new ModelError(text, "stream", { responseStreamDisconnected: { httpStatusCode: null } });
}
