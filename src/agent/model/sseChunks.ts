const LF = 0x0a;
const CR = 0x0d;

/** The end of the last complete event in `bytes` (just after a blank line), or -1; `before` is the byte preceding `bytes`. */
function lastEventEnd(bytes: Uint8Array, before: number): number {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] !== LF) continue;
    const previous = i > 0 ? bytes[i - 1] : before;
    if (previous === LF) return i + 1;
    if (previous === CR && (i > 1 ? bytes[i - 2] : before) === LF) return i + 1;
  }
  return -1;
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/**
 * Regroups a server-sent-events body so every chunk ends at an event boundary. The openai SDK
 * rescans its whole pending buffer for a blank line on every network chunk, which is quadratic
 * in the size of one event (a final `output_item.done` repeats the full answer); handing it whole
 * events keeps the work linear.
 */
export function sseEventChunks(): TransformStream<Uint8Array, Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingLength = 0;
  let lastByte = -1;
  return new TransformStream({
    transform(chunk, controller) {
      const end = lastEventEnd(chunk, lastByte);
      if (chunk.length > 0) lastByte = chunk[chunk.length - 1]!;
      if (end === -1) {
        pending.push(chunk);
        pendingLength += chunk.length;
        return;
      }
      controller.enqueue(concat([...pending, chunk.subarray(0, end)], pendingLength + end));
      pending = end < chunk.length ? [chunk.subarray(end)] : [];
      pendingLength = chunk.length - end;
    },
    flush(controller) {
      if (pendingLength > 0) controller.enqueue(concat(pending, pendingLength));
    },
  });
}

/** `fetch` whose event-stream responses arrive regrouped by {@link sseEventChunks}. */
export const sseFriendlyFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (!response.body || !response.headers.get("content-type")?.includes("text/event-stream")) return response;
  return new Response(response.body.pipeThrough(sseEventChunks()), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};
