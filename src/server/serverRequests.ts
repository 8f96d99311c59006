import type { ResponseMessage } from "vscode-jsonrpc/node";
import { rpcError } from "../protocol/errors.js";
import { ErrorCode } from "../protocol/jsonrpc.js";

interface PendingRequest {
  /** The connections that were sent the request; it is withdrawn when the last one goes away. */
  readonly owners: Set<object>;
  readonly method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/**
 * Server → client requests across all connections: ids come from one process-wide counter starting
 * at 0 (as in Codex), and each request is settled exactly once: by the first response, whichever
 * connection sent it, or by withdrawal. Later or unknown responses are ignored.
 */
export class ServerRequestBroker {
  private nextId = 0;
  private readonly pending = new Map<number, PendingRequest>();

  /** Allocates an id and the promise of the answer; `owners` are the connections asked. */
  open(owners: Iterable<object>, method: string): { id: number; response: Promise<unknown> } {
    const id = this.nextId++;
    const response = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { owners: new Set(owners), method, resolve, reject });
    });
    return { id, response };
  }

  /** One more connection was sent request `id` (a client resumed the thread); false if it is settled. */
  addOwner(id: number, owner: object): boolean {
    const request = this.pending.get(id);
    request?.owners.add(owner);
    return request !== undefined;
  }

  /** Settles the request a client response answers; false if no request is waiting on that id. */
  settle(message: ResponseMessage): boolean {
    if (typeof message.id !== "number") return false;
    const request = this.pending.get(message.id);
    if (!request) return false;
    this.pending.delete(message.id);
    if (message.error) {
      request.reject(rpcError(message.error.code as ErrorCode, message.error.message, message.error.data));
    } else {
      request.resolve(message.result);
    }
    return true;
  }

  /** Withdraws a request without an answer (turn over, or the server no longer needs it). */
  withdraw(id: number, reason: string): void {
    const request = this.pending.get(id);
    if (!request) return;
    this.pending.delete(id);
    request.reject(rpcError(ErrorCode.InternalError, reason));
  }

  /** A connection went away: requests nobody else was sent are withdrawn. */
  dropOwner(owner: object, reason: string): void {
    for (const [id, request] of this.pending) {
      if (request.owners.delete(owner) && request.owners.size === 0) this.withdraw(id, reason);
    }
  }
}
