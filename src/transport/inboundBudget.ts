import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";

/**
 * Default bytes read from all WebSocket clients together and not yet whole messages: one message of
 * the largest size (64 MiB). Measured with eight 60 MB messages at once, the server peaks at about
 * 470 MiB with it, 600 MiB with twice it, and 1.0-1.3 GiB with no budget (bench/load.mjs).
 */
export const DEFAULT_MAX_INBOUND_BYTES = 64 * 1024 * 1024;

/** A metered connection, as the budget sees it. */
interface Metered {
  /** Bytes read from it since its last whole message. */
  held: number;
  readonly socket: WebSocket;
}

/**
 * A bound on the bytes read from all WebSocket clients together and not yet delivered as whole
 * messages. ws buffers a message until its last byte arrives, so without it N clients each sending
 * one message of the largest size make the server hold N times that. Once the bytes held pass the
 * bound, a connection that reads more is paused (TCP then pushes back on its client) until bytes
 * are released. One connection at a time, the finisher, reads on past the bound: messages already
 * begun must be able to complete, or partial messages could fill the budget and stall everyone.
 * So at most the bound, one more message, and a socket read (64 KiB) per connection are held.
 */
export class InboundBudget {
  private used = 0;
  private finisher: Metered | undefined;
  private readonly paused = new Set<Metered>();

  constructor(private readonly limit: number) {}

  /**
   * Meters a connection: `raw` is its socket, `socket` the WebSocket over it. Call after the
   * server's own `message` listener is added, so a message is parsed before its bytes are released.
   */
  meter(raw: Duplex, socket: WebSocket): void {
    const connection: Metered = { held: 0, socket };
    // Counted before ws reads the chunk, so a message completed by this chunk releases it too.
    raw.prependListener("data", (chunk: Buffer) => {
      connection.held += chunk.length;
      this.used += chunk.length;
      if (this.used > this.limit) this.overBudget(connection);
    });
    socket.on("message", () => this.release(connection));
    socket.on("close", () => {
      this.paused.delete(connection);
      this.release(connection);
    });
  }

  private overBudget(connection: Metered): void {
    this.finisher ??= connection;
    if (this.finisher === connection || connection.socket.isPaused) return;
    connection.socket.pause();
    this.paused.add(connection);
  }

  /** Releases what `connection` held (its message is parsed, or it closed); wakes the paused once there is room or no finisher. */
  private release(connection: Metered): void {
    this.used -= connection.held;
    connection.held = 0;
    if (this.finisher === connection) this.finisher = undefined;
    if (this.finisher !== undefined && this.used > this.limit) return;
    // Each reads at most one more chunk before it is paused again, and one of them becomes the finisher.
    for (const waiting of this.paused) waiting.socket.resume();
    this.paused.clear();
  }
}
