import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import path from "node:path";
import { finished } from "node:stream/promises";
import type { Clock } from "../runtime/clock.js";

/** What `GET /sessions` tells about one connection's log. */
export interface SessionSummary {
  readonly id: string;
  readonly startedAt: string;
  readonly lastActivityAt: string;
  /** Lines written to the file so far. */
  readonly messageCount: number;
  readonly file: string;
}

/** One connection's audit log. */
export interface SessionLog {
  /** Appends a message, already redacted (the connection's LogRedactor). */
  record(direction: "in" | "out", message: unknown): void;
  /** Ends the log; resolves once every line is written (or writing failed). */
  close(): Promise<void>;
}

/**
 * The session audit log of `--session-log DIR`: every message of every connection, both
 * directions, appended as JSONL (`{ts, dir, connection, msg}`), one file per connection. The
 * connection redacts secrets before a message gets here.
 */
export class SessionAudit {
  private readonly sessions = new Map<string, { summary: SessionSummary; stream: WriteStream }>();

  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /** Starts the log of a new connection. */
  open(connectionNumber: number): SessionLog {
    const startedAt = new Date(this.clock.nowMs()).toISOString();
    const id = `${startedAt.replace(/[:.]/g, "-")}-${process.pid}-${connectionNumber}`;
    const file = path.join(this.dir, `${id}.jsonl`);
    const stream = createWriteStream(file, { flags: "a" });
    stream.on("error", () => undefined);
    const entry = { summary: { id, startedAt, lastActivityAt: startedAt, messageCount: 0, file }, stream };
    this.sessions.set(id, entry);
    return {
      record: (direction, message) => {
        const ts = new Date(this.clock.nowMs()).toISOString();
        // Counted once written: the listing never names more lines than a reader finds in the file.
        stream.write(JSON.stringify({ ts, dir: direction, connection: id, msg: message }) + "\n", (error) => {
          if (!error) entry.summary = { ...entry.summary, lastActivityAt: ts, messageCount: entry.summary.messageCount + 1 };
        });
      },
      close: () => {
        stream.end();
        return finished(stream).catch(() => undefined);
      },
    };
  }

  /** The sessions logged by this server, oldest first. */
  list(): SessionSummary[] {
    return [...this.sessions.values()].map((entry) => entry.summary);
  }
}
