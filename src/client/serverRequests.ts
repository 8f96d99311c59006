/**
 * The client's side of server → client requests: the handler of each method, the answer (a
 * handler's result, a default, or an error), and the order: a request about a thread is answered
 * only once every running turn of that thread has delivered the events that came before it.
 */
import { ClientError, INTERNAL_ERROR, METHOD_NOT_FOUND } from "./clientErrors.js";
import type { UntypedRequestHandler } from "./clientTypes.js";
import type { TurnQueue } from "./turnEvents.js";

/** The approvals, which nobody handling them declines. */
export const COMMAND_APPROVAL = "item/commandExecution/requestApproval";
export const FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval";

/** What a request nobody handles is answered with, when not -32601: approvals are declined. */
const DEFAULT_ANSWERS: Record<string, unknown> = {
  [COMMAND_APPROVAL]: { decision: "decline" },
  [FILE_CHANGE_APPROVAL]: { decision: "decline" },
};

/** Handlers of server requests, and the requests being handled. */
export class ServerRequests {
  private readonly handlers = new Map<string, UntypedRequestHandler>();
  /** Requests being handled, by id: their handlers' signals abort when the server resolves them elsewhere. */
  private readonly handling = new Map<string | number, AbortController>();

  constructor(
    private readonly send: (message: object) => void,
    /** Why the connection ended, once it has (nothing is answered then). */
    private readonly ended: () => Error | null,
    /** The client's running turns: a request waits for those of its thread. */
    private readonly queues: ReadonlySet<TurnQueue>,
  ) {}

  /** Sets `method`'s handler; returns a function that removes it (if still set). */
  add(method: string, handler: UntypedRequestHandler): () => void {
    this.handlers.set(method, handler);
    return () => {
      if (this.handlers.get(method) === handler) this.handlers.delete(method);
    };
  }

  /** Sets or (null) removes `method`'s handler; returns a remover as {@link add} does. */
  set(method: string, handler: UntypedRequestHandler | null): () => void {
    if (handler) return this.add(method, handler);
    this.handlers.delete(method);
    return () => undefined;
  }

  /** A request arrived: it is answered once every running turn of its thread has delivered what came before it. */
  receive(id: string | number, method: string, params: unknown): void {
    const threadId = (params as { threadId?: unknown } | null | undefined)?.threadId;
    let waiting = 1;
    const release = (): void => {
      if (--waiting === 0) void this.answer(id, method, params);
    };
    for (const queue of this.queues) {
      if (typeof threadId === "string" && queue.threadId !== threadId) continue;
      let released = false;
      if (queue.addBarrier(() => (released ? undefined : ((released = true), release())))) waiting++;
    }
    release();
  }

  /** The server resolved a request elsewhere (`serverRequest/resolved`): its handler's signal aborts. */
  resolved(requestId: string | number): void {
    this.handling.get(requestId)?.abort(new ClientError(`the server resolved request ${requestId}`));
  }

  /** The connection ended: every handler's signal aborts. */
  end(error: Error): void {
    for (const controller of this.handling.values()) controller.abort(error);
  }

  private async answer(id: string | number, method: string, params: unknown): Promise<void> {
    if (this.ended()) return;
    const handler = this.handlers.get(method);
    if (!handler) {
      if (Object.hasOwn(DEFAULT_ANSWERS, method)) this.send({ id, result: DEFAULT_ANSWERS[method] });
      else this.send({ id, error: { code: METHOD_NOT_FOUND, message: `this client does not handle ${method}` } });
      return;
    }
    const controller = new AbortController();
    this.handling.set(id, controller);
    try {
      const result = await handler(params, { id, method, signal: controller.signal });
      if (!this.ended()) this.send({ id, result: result ?? null });
    } catch (error) {
      if (!this.ended()) this.send({ id, error: { code: INTERNAL_ERROR, message: error instanceof Error ? error.message : String(error) } });
    } finally {
      if (this.handling.get(id) === controller) this.handling.delete(id);
    }
  }
}
