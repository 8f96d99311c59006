const LF = 0x0a;
const CR = 0x0d;

/** The ends of the complete events in `bytes` (just after each blank line); `before` is the byte preceding `bytes`. */
function eventEnds(bytes: Uint8Array, before: number): number[] {
  const ends: number[] = [];
  for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) {
    const previous = i > 0 ? bytes[i - 1] : before;
    if (previous === LF || (previous === CR && (i > 1 ? bytes[i - 2] : before) === LF)) ends.push(i + 1);
  }
  return ends;
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
 * Regroups a server-sent-events body into one chunk per event. The openai SDK rescans and copies
 * its whole pending buffer for every network chunk and every event in it, which is quadratic in
 * the size of an event (a final `output_item.done` repeats the full answer) and in the number of
 * events per chunk; handing it one whole event at a time keeps the work linear.
 */
export function sseEventChunks(): TransformStream<Uint8Array, Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingLength = 0;
  let lastByte = -1;
  return new TransformStream({
    transform(chunk, controller) {
      const ends = eventEnds(chunk, lastByte);
      if (chunk.length > 0) lastByte = chunk[chunk.length - 1]!;
      if (ends.length === 0) {
        pending.push(chunk);
        pendingLength += chunk.length;
        return;
      }
      let start = 0;
      for (const end of ends) {
        const piece = chunk.subarray(start, end);
        controller.enqueue(start === 0 ? concat([...pending, piece], pendingLength + piece.length) : piece);
        start = end;
      }
      pending = start < chunk.length ? [chunk.subarray(start)] : [];
      pendingLength = chunk.length - start;
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
