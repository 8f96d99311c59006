import type { ResponseMessage } from "vscode-jsonrpc/node";
import { rpcError } from "../protocol/errors.js";
import { ErrorCode } from "../protocol/jsonrpc.js";

interface ServerRequest<Owner> {
  readonly method: string;
  /** The id each connection was sent the request under; kept until {@link ServerRequestBroker.release}. */
  readonly ids: Map<Owner, number>;
  /** The connections that can still answer; the request is withdrawn when the last one goes away. */
  readonly owners: Set<Owner>;
  settled: boolean;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/**
 * Server → client requests across all connections. Each connection numbers the requests it is
 * sent from 0, as Codex numbers its single connection's, so one request sent to several
 * connections has an id on each. A response settles a request only when it comes from a
 * connection the request was sent to, under the id it was sent there: an id seen on one
 * connection means nothing on another. Each request is settled exactly once, by the first
 * answer from any of its connections or by withdrawal; later and foreign responses are ignored.
 */
export class ServerRequestBroker<Owner extends object = object> {
  private nextKey = 0;
  private readonly nextIds = new WeakMap<Owner, number>();
  private readonly requests = new Map<number, ServerRequest<Owner>>();
  /** Per connection: the id it was sent → the request's key. */
  private readonly byOwner = new Map<Owner, Map<number, number>>();

  /**
   * Opens a request to `owners`: `key` names it inside the server, `ids` are the ids to send it
   * under, one per connection; `response` settles with the first answer.
   */
  open(owners: Iterable<Owner>, method: string): { key: number; ids: ReadonlyMap<Owner, number>; response: Promise<unknown> } {
    const key = this.nextKey++;
    let request!: ServerRequest<Owner>;
    const response = new Promise<unknown>((resolve, reject) => {
      request = { method, ids: new Map(), owners: new Set(), settled: false, resolve, reject };
    });
    this.requests.set(key, request);
    for (const owner of owners) this.issue(key, request, owner);
    return { key, ids: request.ids, response };
  }

  /**
   * Sends request `key` to one more connection (a client that resumed the thread): the id to send
   * it under (the one it already has, if it was sent there before), or null once it is settled.
   */
  addOwner(key: number, owner: Owner): number | null {
    const request = this.requests.get(key);
    if (!request || request.settled) return null;
    return request.ids.get(owner) ?? this.issue(key, request, owner);
  }

  /**
   * Settles the request that `owner` was sent under the response's id; false, leaving every
   * request as it was, when no request waits for that id from that connection.
   */
  settle(owner: Owner, message: ResponseMessage): boolean {
    if (typeof message.id !== "number") return false;
    const key = this.byOwner.get(owner)?.get(message.id);
    const request = key === undefined ? undefined : this.requests.get(key);
    if (!request || request.settled || !request.owners.has(owner)) return false;
    this.finish(request);
    if (message.error) {
      request.reject(rpcError(message.error.code as ErrorCode, message.error.message, message.error.data));
    } else {
      request.resolve(message.result);
    }
    return true;
  }

  /** Withdraws a request without an answer (turn over, or the server no longer needs it). */
  withdraw(key: number, reason: string): void {
    const request = this.requests.get(key);
    if (!request || request.settled) return;
    this.finish(request);
    request.reject(rpcError(ErrorCode.InternalError, reason));
  }

  /** A connection went away: it can answer nothing more, and requests nobody else was sent are withdrawn. */
  dropOwner(owner: Owner, reason: string): void {
    for (const [key, request] of this.requests) {
      if (request.owners.delete(owner) && request.owners.size === 0) this.withdraw(key, reason);
    }
  }

  /**
   * Forgets request `key` (withdrawing it if still open) and returns the id each connection was
   * sent it under, for the `serverRequest/resolved` each of them is owed.
   */
  release(key: number): ReadonlyMap<Owner, number> {
    const request = this.requests.get(key);
    if (!request) return new Map();
    this.withdraw(key, "the request was released");
    this.requests.delete(key);
    for (const [owner, id] of request.ids) {
      const ids = this.byOwner.get(owner);
      ids?.delete(id);
      if (ids?.size === 0) this.byOwner.delete(owner);
    }
    return request.ids;
  }

  /** Requests not yet released (settled or not): what the server still keeps. */
  get size(): number {
    return this.requests.size;
  }

  private issue(key: number, request: ServerRequest<Owner>, owner: Owner): number {
    const id = this.nextIds.get(owner) ?? 0;
    this.nextIds.set(owner, id + 1);
    request.ids.set(owner, id);
    request.owners.add(owner);
    let ids = this.byOwner.get(owner);
    if (!ids) this.byOwner.set(owner, (ids = new Map()));
    ids.set(id, key);
    return id;
  }

  private finish(request: ServerRequest<Owner>): void {
    request.settled = true;
    request.owners.clear();
  }
}
