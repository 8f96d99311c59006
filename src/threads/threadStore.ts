import { appendFile, mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { lazySchema } from "../protocol/lazySchema.js";
import { ThreadReadState } from "../protocol/thread.js";
import type { Logger } from "../runtime/logger.js";
import { readThreadHistory, ThreadFileWriter } from "./threadFile.js";
import type { ThreadHistory } from "./threadHistory.js";
import type { ThreadRecord } from "./records.js";
import { writeFileAtomic } from "../runtime/atomicFile.js";

/** What `thread/list` needs of a stored thread, kept in the index so listing reads no thread file. */
export const ThreadSummary = lazySchema(() => z.object({
  id: z.string(),
  path: z.string(),
  archived: z.boolean(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  preview: z.string(),
  name: z.string().nullable(),
  cwd: z.string(),
  model: z.string(),
  modelProvider: z.string(),
  reasoningEffort: z.string().nullable().optional(),
  source: z.unknown(),
  threadSource: z.string().nullable().optional(),
  forkedFromId: z.string().nullable().optional(),
  sessionId: z.string(),
  cliVersion: z.string(),
  originator: z.string().nullable().optional(),
  gitInfo: z.unknown().nullable().optional(),
  /** Unread tracking (absent in index lines written before it was kept). */
  readState: ThreadReadState.optional(),
}));
export type ThreadSummary = z.infer<typeof ThreadSummary>;

const INDEX_FILE = "thread_index.jsonl";

/**
 * Thread files on disk: `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (UTC), moved to
 * `archived_sessions/` when archived, plus an append-only index (`thread_index.jsonl`, latest line
 * per id wins) that is rebuilt from the thread files whenever it is missing or points at a file
 * that is gone.
 */
export class ThreadStore {
  private readonly index = new Map<string, ThreadSummary>();
  private indexTail: Promise<void> = Promise.resolve();
  /** Index lines waiting for the write in flight to finish; they go out together in the next one. */
  private queuedLines = "";
  private queuedWrite: Promise<void> | undefined;
  /** The index file may be missing entries (a failed write): rewrite it whole next time. */
  private indexStale = false;

  constructor(
    private readonly home: string,
    private readonly logger: Logger,
  ) {}

  /** Where new thread files are written before they are renamed into place (see {@link create}). */
  private get incomingDir(): string {
    return path.join(this.home, "sessions", ".incoming");
  }

  private get sessionsDir(): string {
    return path.join(this.home, "sessions");
  }

  private get archivedDir(): string {
    return path.join(this.home, "archived_sessions");
  }

  private get indexPath(): string {
    return path.join(this.home, INDEX_FILE);
  }

  /** `sessions/YYYY/MM/DD` (UTC) of a thread created at `ms`. */
  private dayDir(ms: number): string {
    const iso = new Date(ms).toISOString();
    return path.join(this.sessionsDir, iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10));
  }

  /** Loads the index, rebuilding it from the thread files if it is missing or unreadable. */
  async init(): Promise<void> {
    // Files a crash left half-created: never listed, never resumable.
    await rm(this.incomingDir, { recursive: true, force: true }).catch(() => undefined);
    let text: string | undefined;
    try {
      text = await readFile(this.indexPath, "utf8");
    } catch {
      text = undefined;
    }
    if (text === undefined) return this.rebuildIndex();
    let lines = 0;
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      lines++;
      try {
        const entry = ThreadSummary.parse(JSON.parse(line));
        this.index.set(entry.id, entry);
      } catch {
        // Half a line (a full disk, a crash mid-write): later entries may be missing too.
        this.logger.warn({ path: this.indexPath }, "the thread index has an unreadable line; rebuilding it from the thread files");
        return this.rebuildIndex();
      }
    }
    // Keep the append-only index from growing without bound.
    if (lines > 2 * this.index.size + 100) await this.rewriteIndex();
    await this.adoptUnindexed();
  }

  /**
   * A crash between a new thread's file and its index line (the index is written after) leaves
   * a thread the index does not know. Such threads were being created when the server stopped, so
   * they are in the newest day's directory: its files the index lacks are added, at the cost of
   * one directory listing per start.
   */
  private async adoptUnindexed(): Promise<void> {
    const newest = await newestDayDir(this.sessionsDir);
    if (newest === null) return;
    const known = new Set([...this.index.values()].map((summary) => summary.path));
    const entries = await readdir(newest, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const file = path.join(newest, entry.name);
      if (!entry.isFile() || !entry.name.endsWith(".jsonl") || known.has(file)) continue;
      try {
        const { history } = await readThreadHistory(file, this.logger);
        await this.record(summarize(history, file, false));
        this.logger.warn({ path: file }, "indexed a thread file the index lacked (the server stopped while creating it)");
      } catch (error) {
        this.logger.warn({ err: error, path: file }, "skipped an unreadable thread file");
      }
    }
  }

  /** Every stored thread, archived or not. */
  summaries(): IterableIterator<ThreadSummary> {
    return this.index.values();
  }

  /** The stored summary of one thread, if any. */
  summary(id: string): ThreadSummary | undefined {
    return this.index.get(id);
  }

  /**
   * Creates the file of a new thread with its first record; returns its path and writer. When
   * `durable`, the record and the file's directory entry are fsynced (and the entries of the
   * directories made for it), so the thread survives a crash once this resolves. The day's
   * directory is made only when the file cannot be created without it: a start costs one open,
   * one write and two fsyncs. A file whose first record could not be written is removed.
   */
  async create(record: Extract<ThreadRecord, { type: "thread" }>, durable: boolean): Promise<{ path: string; writer: ThreadFileWriter }> {
    const dir = this.dayDir(record.at);
    const stamp = new Date(record.at).toISOString().slice(0, 19).replace(/:/g, "-");
    const file = path.join(dir, `rollout-${stamp}-${record.identity.id}.jsonl`);
    // The file is written in .incoming/ and renamed into place with its first record: a crash in
    // between leaves no empty thread file, only a leftover that the next start clears.
    const incoming = path.join(this.incomingDir, `${record.identity.id}.jsonl`);
    const writer = await ThreadFileWriter.create(incoming).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
      await mkdir(this.incomingDir, { recursive: true });
      return ThreadFileWriter.create(incoming);
    });
    // The directories whose entries changed: the day's, and those above it made just now.
    const changed = [dir];
    try {
      await writer.append(record, durable);
      await rename(incoming, file).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
        // The first directory made (undefined: a concurrent start made the day's first); each made one's entry is in its parent.
        const first = (await mkdir(dir, { recursive: true })) ?? dir;
        for (let made = dir; made !== path.dirname(first); made = path.dirname(made)) changed.push(path.dirname(made));
        await rename(incoming, file);
      });
      writer.path = file;
      if (durable) for (const directory of changed) await syncDirectory(directory);
    } catch (error) {
      await writer.close().catch(() => undefined);
      await rm(incoming, { force: true });
      await rm(file, { force: true });
      throw error;
    }
    return { path: file, writer };
  }

  /** Reads a stored thread; undefined when no file has that id. */
  async read(id: string): Promise<{ history: ThreadHistory; summary: ThreadSummary; intactBytes: number } | undefined> {
    let summary = this.index.get(id);
    if (!summary) return undefined;
    let contents;
    try {
      contents = await readThreadHistory(summary.path, this.logger);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      this.logger.warn({ id, path: summary.path }, "thread file moved or gone; rebuilding the thread index");
      await this.rebuildIndex();
      summary = this.index.get(id);
      if (!summary) return undefined;
      contents = await readThreadHistory(summary.path, this.logger);
    }
    return { history: contents.history, summary, intactBytes: contents.intactBytes };
  }

  /** Records the current state of a thread in the index. */
  remember(history: ThreadHistory, filePath: string, archived: boolean): Promise<void> {
    return this.record(summarize(history, filePath, archived));
  }

  /**
   * Sets a thread's index entry and appends it to the file; resolves once the line is written.
   * Lines recorded while a write is in flight share the next write: twenty threads starting at once
   * cost two appends, not twenty (each an open, a write and a close on the I/O threads).
   */
  private record(summary: ThreadSummary): Promise<void> {
    this.index.set(summary.id, summary);
    this.queuedLines += JSON.stringify(summary) + "\n";
    this.queuedWrite ??= this.writeQueuedLines();
    return this.queuedWrite;
  }

  private writeQueuedLines(): Promise<void> {
    const write = this.indexTail.then(async () => {
      const lines = this.queuedLines;
      this.queuedLines = "";
      this.queuedWrite = undefined;
      // After a failed append (a full disk) the file may lack entries or end in half a line:
      // the next write rewrites it whole from memory instead of appending to it.
      if (this.indexStale) await this.rewriteIndex();
      else await appendFile(this.indexPath, lines);
      this.indexStale = false;
    });
    this.indexTail = write.catch((error: unknown) => {
      this.indexStale = true;
      this.logger.error({ err: error }, "could not update the thread index; it is rewritten whole at the next change");
    });
    return this.indexTail;
  }

  /** Moves a thread file between `sessions/` and `archived_sessions/`; returns the updated summary. */
  async move(summary: ThreadSummary, archived: boolean): Promise<ThreadSummary> {
    const name = path.basename(summary.path);
    const target = path.join(archived ? this.archivedDir : this.dayDir(summary.createdAtMs), name);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(summary.path, target);
    const moved = { ...summary, path: target, archived };
    await this.record(moved);
    return moved;
  }

  /**
   * Deletes a thread for good: its file, and its entry in the index (rewritten whole, after the
   * writes in flight, without any line still queued for it).
   */
  async delete(summary: ThreadSummary): Promise<void> {
    await rm(summary.path, { force: true });
    this.index.delete(summary.id);
    this.queuedLines = this.queuedLines
      .split("\n")
      .filter((line) => line && (JSON.parse(line) as ThreadSummary).id !== summary.id)
      .map((line) => line + "\n")
      .join("");
    const rewrite = this.indexTail.then(() => this.rewriteIndex());
    this.indexTail = rewrite.catch((error: unknown) => this.logger.error({ err: error }, "could not rewrite the thread index"));
    await rewrite;
  }

  /** Waits for index writes in flight. */
  async flush(): Promise<void> {
    await this.indexTail;
    // A last try at an index a failed write left incomplete (space may be back by now).
    if (this.indexStale) await this.rewriteIndex().then(() => (this.indexStale = false), () => undefined);
  }

  private async rebuildIndex(): Promise<void> {
    this.index.clear();
    for (const [dir, archived] of [
      [this.sessionsDir, false],
      [this.archivedDir, true],
    ] as const) {
      for (const file of await listThreadFiles(dir)) {
        try {
          const { history } = await readThreadHistory(file, this.logger);
          const summary = summarize(history, file, archived);
          this.index.set(summary.id, summary);
        } catch (error) {
          this.logger.warn({ err: error, path: file }, "skipped an unreadable thread file while indexing");
        }
      }
    }
    await this.rewriteIndex();
  }

  private async rewriteIndex(): Promise<void> {
    await mkdir(this.home, { recursive: true });
    const text = [...this.index.values()].map((entry) => JSON.stringify(entry) + "\n").join("");
    // A full disk leaves the old index in place, and no half-written temp beside it.
    await writeFileAtomic(this.indexPath, text);
  }
}

/** The index entry of a thread as its history stands now. */
export function summarize(history: ThreadHistory, filePath: string, archived: boolean): ThreadSummary {
  const { identity, settings } = history;
  return {
    id: identity.id,
    path: filePath,
    archived,
    createdAtMs: identity.createdAtMs,
    updatedAtMs: history.updatedAtMs,
    preview: history.preview,
    name: history.name,
    cwd: settings.cwd,
    model: settings.model,
    modelProvider: settings.modelProvider,
    reasoningEffort: settings.reasoningEffort ?? null,
    source: identity.source,
    threadSource: identity.threadSource ?? null,
    forkedFromId: identity.forkedFromId ?? null,
    sessionId: identity.sessionId,
    cliVersion: identity.cliVersion,
    originator: identity.originator ?? null,
    gitInfo: history.gitInfo,
    readState: history.readState(),
  };
}

async function listThreadFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".jsonl"))
    .map((entry) => path.join(entry.parentPath ?? (entry as { path: string }).path, entry.name))
    .filter((file) => !file.split(path.sep).includes(".incoming"));
}

/** The newest `YYYY/MM/DD` directory under `sessions` (by name), or null when there is none. */
async function newestDayDir(sessions: string): Promise<string | null> {
  let dir = sessions;
  for (let depth = 0; depth < 3; depth++) {
    const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name)).sort();
    const last = names.at(-1);
    if (last === undefined) return null;
    dir = path.join(dir, last);
  }
  return dir;
}

/** fsyncs a directory, making the entries created in it durable. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
