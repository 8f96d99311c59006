import { serverOverloaded } from "../protocol/errors.js";

/**
 * Default bytes `fs/readFile` may hold at once over all connections: two reads of the largest file
 * it serves (64 MiB). A read holds about four times its size until answered (bytes, base64, JSON
 * line): four 60 MiB reads at once peak at 0.5-0.7 GiB with it (two are refused), 1.2 GiB without.
 */
export const DEFAULT_MAX_CONCURRENT_READ_BYTES = 128 * 1024 * 1024;

/**
 * A server-wide budget of bytes in use at once. A reservation that does not fit now is refused
 * with -32001 rather than queued: the client retries later, and the server never holds more than
 * the budget however many requests arrive together.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Reserves `bytes` and returns their release (idempotent); throws -32001 when they do not fit. */
  reserve(bytes: number): () => void {
    if (this.used + bytes > this.limit) throw serverOverloaded();
    this.used += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
    };
  }
}
