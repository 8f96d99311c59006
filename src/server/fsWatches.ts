/**
 * The `fs/watch` watches of each connection, by the client's `watchId` (connection-scoped, as in
 * Codex). A connection's watches stop when it closes, and every watch when the server stops; a
 * connection may hold at most {@link MAX_WATCHES_PER_CONNECTION}, so no client can exhaust the
 * machine's inotify watches.
 */
import { invalidRequest } from "../protocol/errors.js";
import type { PathWatcher } from "../workspace/pathWatcher.js";
import type { ClientConnection } from "./connection.js";

/** Watches one connection may hold at once. */
export const MAX_WATCHES_PER_CONNECTION = 128;

/** Every connection's watches. */
export class FsWatches {
  private readonly byConnection = new Map<ClientConnection, Map<string, PathWatcher>>();

  /** Registers a watch `start` makes under `watchId`; -32600 for an id in use or one watch too many. */
  add(connection: ClientConnection, watchId: string, start: () => PathWatcher): void {
    let watches = this.byConnection.get(connection);
    if (watches?.has(watchId)) throw invalidRequest(`fs/watch id ${JSON.stringify(watchId)} is already in use on this connection`);
    if ((watches?.size ?? 0) >= MAX_WATCHES_PER_CONNECTION) {
      throw invalidRequest(`fs/watch refused: this connection already has ${MAX_WATCHES_PER_CONNECTION} watches (fs/unwatch some first)`);
    }
    if (!watches) {
      watches = new Map();
      this.byConnection.set(connection, watches);
      connection.onOutputClosed(() => this.closeConnection(connection));
    }
    watches.set(watchId, start());
  }

  /** Stops a watch; false when the connection has none with that id. */
  remove(connection: ClientConnection, watchId: string): boolean {
    const watches = this.byConnection.get(connection);
    const watcher = watches?.get(watchId);
    if (!watcher) return false;
    watcher.close();
    watches!.delete(watchId);
    return true;
  }

  /** Stops every watch (server shutdown). */
  stop(): void {
    for (const connection of [...this.byConnection.keys()]) this.closeConnection(connection);
  }

  private closeConnection(connection: ClientConnection): void {
    for (const watcher of this.byConnection.get(connection)?.values() ?? []) watcher.close();
    this.byConnection.delete(connection);
  }
}
