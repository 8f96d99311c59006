/** How long a provider's model list is reused: a picker opened twice asks the provider once. */
export const LIST_FRESH_MS = 60_000;
/** How long a failed listing is reused: long enough for a picker's second look, short enough to retry soon. */
export const LIST_FAILED_MS = 5_000;

interface Entry<T> {
  readonly listing: Promise<T>;
  /** When the entry goes stale; never while the listing is still under way, so callers meanwhile share it. */
  expiresAt: number;
}

/** Recent listings by key: what one `load` found (or failed with) is what every caller gets until it goes stale. */
export class ModelListCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The listing for `key`: a fresh one from before, else a new one from `load`. */
  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.now();
    for (const [stale, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(stale);
    const cached = this.entries.get(key);
    if (cached) return cached.listing;
    const entry: Entry<T> = { listing: load(), expiresAt: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    entry.listing.then(
      () => (entry.expiresAt = this.now() + LIST_FRESH_MS),
      () => (entry.expiresAt = this.now() + LIST_FAILED_MS),
    );
    return entry.listing;
  }
}
