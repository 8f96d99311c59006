import type { Readable } from "node:stream";
import { WAIT_MS } from "./serverProcess.js";

/** The messages a client received from an output stream (one JSON per line), with waits on them. */
export class MessageLog {
  readonly messages: any[] = [];
  private waiters: Array<{ match: (m: any) => boolean; resolve: (m: any) => void }> = [];
  private buffer = "";

  constructor(output: Readable) {
    output.setEncoding("utf8");
    output.on("data", (chunk: string) => {
      this.buffer += chunk;
      const lines = this.buffer.split("\n");
      this.buffer = lines.pop()!;
      for (const line of lines) this.push(JSON.parse(line));
    });
  }

  /** Resolves with the first message (already received or future) that matches. */
  waitFor(match: (message: any) => boolean, timeoutMs = WAIT_MS): Promise<any> {
    const found = this.messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out waiting for a message")), timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** The response to request `id`. */
  response(id: unknown): Promise<any> {
    return this.waitFor((m) => m.id === id && !("method" in m));
  }

  private push(message: any): void {
    this.messages.push(message);
    for (const waiter of this.waiters.filter((w) => w.match(message))) {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      waiter.resolve(message);
    }
  }
}
