import type { ClientConnection } from "./connection.js";

/** The searches running on one connection. */
interface ConnectionSearches {
  closed: boolean;
  readonly all: Set<AbortController>;
  readonly byToken: Map<string, AbortController>;
}

/** A search in progress: stop when `signal` aborts; call `end` when it is done. */
export interface RunningSearch {
  readonly signal: AbortSignal;
  end(): void;
}

/**
 * The `fuzzyFileSearch` searches running on each connection. A search is cancelled when a newer
 * one with the same `cancellationToken` starts on that connection (as Codex), and when the
 * connection closes, input or output: nobody is left to read the answer, so no work continues.
 */
export class FileSearches {
  private readonly byConnection = new WeakMap<ClientConnection, ConnectionSearches>();

  /** Registers a search of `connection`, cancelling the one that holds `token`; call before any await. */
  begin(connection: ClientConnection, token: string | undefined): RunningSearch {
    const searches = this.searchesOf(connection);
    const controller = new AbortController();
    if (searches.closed) controller.abort();
    searches.all.add(controller);
    if (token !== undefined) {
      searches.byToken.get(token)?.abort();
      searches.byToken.set(token, controller);
    }
    return {
      signal: controller.signal,
      end: () => {
        searches.all.delete(controller);
        if (token !== undefined && searches.byToken.get(token) === controller) searches.byToken.delete(token);
      },
    };
  }

  private searchesOf(connection: ClientConnection): ConnectionSearches {
    let searches = this.byConnection.get(connection);
    if (!searches) {
      const created: ConnectionSearches = { closed: false, all: new Set(), byToken: new Map() };
      const close = () => {
        created.closed = true;
        for (const controller of created.all) controller.abort();
      };
      connection.onInputClosed(close);
      connection.onOutputClosed(close);
      this.byConnection.set(connection, (searches = created));
    }
    return searches;
  }
}
