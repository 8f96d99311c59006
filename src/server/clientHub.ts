/**
 * The server's side of every client at once: the open connections, the broker of server → client
 * requests, and the ways the rest of the server reaches clients (a thread's subscribers, every
 * client, every initialized client). Built before the ThreadManager, which talks to clients only
 * through {@link ClientHub.emit} and {@link ClientHub.requests}.
 */
import type { ServerNotificationMethod, ServerNotificationParams } from "../protocol/methods.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { ClientRequester, ThreadEmitter } from "../threads/threadEvents.js";
import { validateAnswer, type ClientConnection } from "./connection.js";
import { createNotification } from "./notifications.js";
import { ServerRequestBroker } from "./serverRequests.js";

/** The open connections and what reaches them. */
export class ClientHub {
  readonly connections = new Set<ClientConnection>();
  readonly serverRequests = new ServerRequestBroker<ClientConnection>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Sends a notification to some connections, stamped once before the fan-out; a promise while any of them has too much output queued. */
  readonly emit: ThreadEmitter<ClientConnection> = (recipients, method, params) => {
    const notification = createNotification(this.clock, method, params);
    let behind: Promise<unknown> | undefined;
    for (const connection of recipients) {
      void connection.notify(notification);
      const caughtUp = connection.caughtUp();
      if (caughtUp) behind = behind ? Promise.all([behind, caughtUp]) : caughtUp;
    }
    return behind?.then(() => undefined);
  };

  /** Server → client requests: inside the server a request is known by its broker key; each connection sees its own id for it. */
  readonly requests: ClientRequester<ClientConnection> = {
    open: (recipients, method, params) => {
      const { key, ids, response } = this.serverRequests.open(recipients, method);
      for (const [connection, id] of ids) connection.sendRequest(id, method, params);
      // Nobody to ask is an answer too: never wait on a request no client was sent.
      if (ids.size === 0) this.serverRequests.withdraw(key, "no client is subscribed to this thread");
      return { id: key, answer: response.then((result) => validateAnswer(method, result)) };
    },
    replay: (key, method, params, recipient) => {
      const id = this.serverRequests.addOwner(key, recipient);
      if (id !== null) recipient.sendRequest(id, method, params);
    },
    withdraw: (key, reason) => this.serverRequests.withdraw(key, reason),
    resolved: (key, recipients, threadId) => {
      const ids = this.serverRequests.release(key);
      // Stamped once, as every fanned-out notification is, then addressed with each connection's id.
      const notification = createNotification(this.clock, "serverRequest/resolved", { threadId, requestId: 0 });
      for (const connection of recipients) {
        const id = ids.get(connection);
        if (id !== undefined) void connection.notify({ ...notification, params: { threadId, requestId: id } });
      }
    },
    forget: (key) => void this.serverRequests.release(key),
  };

  /** Sends a notification to every client that has initialized (the others get it after their `initialize` response). */
  toInitialized<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): void {
    this.emit([...this.connections].filter((connection) => connection.client), method, params);
  }

  /** Logs a problem and sends a `configWarning` to every client, once per summary for the life of the server. */
  warnOnce(summary: string, details: string): void {
    if (this.warned.has(summary)) return;
    this.warned.add(summary);
    this.logger.warn({ details }, summary);
    this.emit(this.connections, "configWarning", { summary, details });
  }
}
