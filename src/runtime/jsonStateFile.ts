/**
 * A small JSON document kept whole in memory and on disk (the thread sections, the thread
 * attachments): every change is applied to a copy, written to a temp file beside the real one and
 * renamed into place, one change at a time, so a failed edit or write (a full disk) changes neither.
 */
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type * as z from "zod";
import { writeFileAtomic } from "./atomicFile.js";

/** The document, its schema and its file. */
export class JsonStateFile<T> {
  private current: T;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly schema: z.ZodType<T>,
    empty: T,
    /** The file's permissions (0600 for secrets); the default umask otherwise. */
    private readonly mode?: number,
  ) {
    this.current = empty;
  }

  /** The document as it stands (do not mutate; use {@link change}). */
  get state(): T {
    return this.current;
  }

  /** Reads the file; a missing or unreadable one leaves the empty document. */
  async load(): Promise<void> {
    try {
      const parsed = this.schema.safeParse(JSON.parse(await readFile(this.file, "utf8")));
      if (parsed.success) this.current = parsed.data;
    } catch {
      // Nothing stored yet.
    }
  }

  /** Applies `edit` to a copy of the document, writes it, then keeps it; a failed edit or write changes nothing. */
  change<R>(edit: (draft: T) => R): Promise<R> {
    const run = this.queue.then(async () => {
      const draft = structuredClone(this.current);
      const result = edit(draft);
      await mkdir(path.dirname(this.file), { recursive: true });
      await writeFileAtomic(this.file, JSON.stringify(draft, null, 2) + "\n", { mode: this.mode });
      this.current = draft;
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
