import { maskSpans, secretSpans } from "./secretPatterns.js";
import { base64ToLatin1, latin1ToBase64, redactSecrets, type KnownSecrets } from "./secretRedaction.js";

// How much of a stream's recent text is kept to find a secret split across chunks; at least the
// longest known secret is kept. A credential-shaped run longer than this, split, may show its end.
const WINDOW = 256;
// Streams whose windows are kept; the oldest is forgotten first (streams end without telling us).
const MAX_STREAMS = 256;

/** A streamed chunk in a message: its field, and the stream it continues. */
interface Chunk {
  readonly field: "delta" | "deltaBase64";
  readonly stream: string;
}

/**
 * The streamed chunk `message` carries, if any: `delta` of `item/…/delta`-like notifications (by
 * item), `deltaBase64` of `command/exec/outputDelta` (by process and stdout/stderr) and of
 * `command/exec/write` (stdin).
 */
function chunkOf(message: unknown): Chunk | undefined {
  const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
  if (typeof method !== "string" || !params || typeof params !== "object") return undefined;
  const field = typeof params.delta === "string" ? "delta" : typeof params.deltaBase64 === "string" ? "deltaBase64" : undefined;
  if (!field) return undefined;
  return { field, stream: JSON.stringify([method, params.itemId ?? params.processId, params.stream]) };
}

/**
 * Makes one connection's messages safe to log (audit log, `trace`), in the order they pass. Each
 * message is redacted on its own ({@link redactSecrets}); a streamed chunk is also redacted with
 * the end of its stream's previous chunks before it, so a secret split across chunks is masked
 * in the chunk that completes it, and a chunk ending in what may begin a secret masks that end.
 * Neither part of a split secret reaches the log. What the client receives is not changed.
 */
export class LogRedactor {
  /** Per stream, the raw (unmasked) end of its text so far. */
  private readonly windows = new Map<string, string>();

  constructor(private readonly secrets: () => KnownSecrets) {}

  /** A copy of `message` safe to log. */
  redact(message: unknown): unknown {
    const secrets = this.secrets();
    const safe = redactSecrets(message, secrets);
    const chunk = chunkOf(message);
    if (!chunk) return safe;
    const params = (message as { params: Record<string, string> }).params;
    const redacted =
      chunk.field === "delta"
        ? this.continueStream(chunk.stream, params.delta!, secrets.text)
        : latin1ToBase64(this.continueStream(chunk.stream, base64ToLatin1(params.deltaBase64!), secrets.bytes));
    const safeParams = (safe as { params: Record<string, unknown> }).params;
    return { ...(safe as object), params: { ...safeParams, [chunk.field]: redacted } };
  }

  /** `chunk`, masked as the continuation of `stream`'s text. */
  private continueStream(stream: string, chunk: string, secrets: readonly string[]): string {
    const carried = this.windows.get(stream) ?? "";
    const text = carried + chunk;
    const keep = Math.max(WINDOW, ...secrets.map((secret) => secret.length));
    // Re-inserted, so the map's first entry is the stream that went quiet longest.
    this.windows.delete(stream);
    this.windows.set(stream, text.slice(Math.max(0, text.length - keep)));
    if (this.windows.size > MAX_STREAMS) this.windows.delete(this.windows.keys().next().value!);
    return maskSpans(text, secretSpans(text, secrets, true), carried.length);
  }
}
