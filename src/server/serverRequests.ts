import type { ResponseMessage } from "vscode-jsonrpc/node";
import { rpcError } from "../protocol/errors.js";
import { ErrorCode } from "../protocol/jsonrpc.js";

interface PendingRequest {
  readonly owner: object;
  readonly method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/**
 * Server → client requests across all connections: ids come from one process-wide counter starting
 * at 0 (as in Codex), and each response settles its request exactly once, whichever connection
 * sent it; later or unknown responses are ignored.
 */
export class ServerRequestBroker {
  private nextId = 0;
  private readonly pending = new Map<number, PendingRequest>();

  /** Allocates an id and the promise of the client's answer; `owner` is the connection asked. */
  open(owner: object, method: string): { id: number; response: Promise<unknown> } {
    const id = this.nextId++;
    const response = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { owner, method, resolve, reject });
    });
    return { id, response };
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

  /** Fails every request still waiting on a connection that went away. */
  dropOwner(owner: object, reason: string): void {
    for (const [id, request] of this.pending) {
      if (request.owner === owner) this.withdraw(id, reason);
    }
  }
}
