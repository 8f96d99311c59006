import { CODEX_CLIENT_METHODS, OUT_OF_SCOPE_METHODS } from "../protocol/codexMethods.js";
import {
  internalError,
  invalidRequest,
  ioFailure,
  isRpcError,
  invalidParams,
  methodNotFound,
  methodOutOfScope,
  notInitialized,
} from "../protocol/errors.js";
import { describeStorageFault } from "../runtime/systemErrors.js";
import type { RequestId } from "../protocol/jsonrpc.js";
import {
  clientRequestSpec,
  type ClientRequestMethod,
  type ClientRequestParams,
  type ClientRequestResult,
  type RequestSpec,
} from "../protocol/methods.js";
import type { Logger } from "../runtime/logger.js";
import { LargeResult } from "../transport/slicedJson.js";
import { checkThreadId } from "../threads/errors.js";
import type { ClientConnection } from "./connection.js";
import type { RequestScheduler } from "./requestScheduler.js";

/**
 * Methods whose result can run to megabytes (a thread's whole history, a file, a directory, a
 * command's or tool's output): the writer serializes it in slices, not in one call.
 */
const LARGE_RESULT_METHODS: ReadonlySet<string> = new Set([
  "thread/resume",
  "thread/fork",
  "thread/read",
  "thread/turns/list",
  "thread/items/list",
  "thread/revert",
  "fs/readFile",
  "fs/readDirectory",
  "command/exec",
  "mcpServer/tool/call",
  "mcpServer/resource/read",
]);

/** What a handler knows about the request it serves. */
export interface RequestContext {
  readonly connection: ClientConnection;
  readonly requestId: RequestId;
  /** Runs `fn` once the response has been written, for work whose notifications must follow it. */
  afterResponse(fn: () => void): void;
  /**
   * Runs `fn` once the answer no longer holds what it was made from: a large result once its line
   * is in the output stream or dropped (serializing it ends long after `afterResponse`); at once
   * for an error or a small result. For memory the answer keeps, such as fs/readFile's bytes.
   */
  whenAnswerWritten(fn: () => void): void;
}

/** Serves one method: validated params in, result out; throws {@link RpcError} to answer with an error. */
export type Handler<M extends ClientRequestMethod> = (
  params: ClientRequestParams<M>,
  context: RequestContext,
) => Promise<ClientRequestResult<M>> | ClientRequestResult<M>;

/** One handler for every method in the registry; the compiler checks none is missing. */
export type HandlerTable = { readonly [M in ClientRequestMethod]: Handler<M> };

/**
 * Turns a raw request into a handler call: unknown method → -32601, not initialized → -32600,
 * bad params → -32602 naming the field path, then the handler under the scheduler (requests that
 * name a thread run in order per thread; admission is bounded per connection and server-wide).
 * Unexpected failures become -32603; the stack is logged.
 */
export class Dispatcher {
  constructor(
    private readonly handlers: HandlerTable,
    private readonly scheduler: RequestScheduler,
    private readonly logger: Logger,
  ) {}

  /** Serves one request; resolves with its result or rejects with the error to answer. */
  async dispatch(connection: ClientConnection, method: string, rawParams: unknown, requestId: RequestId): Promise<unknown> {
    const spec = clientRequestSpec(method);
    const known = spec !== undefined || CODEX_CLIENT_METHODS.has(method);
    if (!known) throw methodNotFound(method, false);
    // As in Codex, any protocol method (even one we lack) before `initialize` is "Not initialized".
    if (method !== "initialize" && !connection.client) throw notInitialized();
    if (!spec) {
      const reason = OUT_OF_SCOPE_METHODS.get(method);
      throw reason === undefined ? methodNotFound(method, true) : methodOutOfScope(method, reason);
    }
    if (spec.experimental && !connection.client?.experimentalApi) throw invalidRequest(`${method} requires experimentalApi capability`);
    const parsed = validParams(spec, method, rawParams);
    const handler = this.handlers[method as ClientRequestMethod] as Handler<ClientRequestMethod>;
    const holds: Array<() => void> = [];
    const written = () => {
      for (const release of holds.splice(0)) release();
    };
    const context: RequestContext = {
      connection,
      requestId,
      afterResponse: (fn) => connection.whenResponded(requestId, fn),
      whenAnswerWritten: (fn) => void holds.push(fn),
    };
    try {
      // `initialize` is cheap and a connection can do nothing before it: a busy server still lets
      // clients in (their own bound still applies), so only its real work is refused.
      const admission = { owner: connection, pastCeiling: method === "initialize" && !connection.client };
      const result = await this.scheduler.run(admission, orderingKey(spec, parsed), async () => handler(parsed as never, context));
      if (LARGE_RESULT_METHODS.has(method)) return new LargeResult(result, written);
      written();
      return result;
    } catch (error) {
      written();
      if (isRpcError(error)) throw error;
      this.logger.error({ err: error, method, requestId }, "request handler failed");
      // A full disk or a read-only home is the user's to fix: say which file, and why.
      const storage = describeStorageFault(error);
      if (storage) throw ioFailure(`${method} failed: ${storage}`, { code: (error as NodeJS.ErrnoException).code, path: (error as NodeJS.ErrnoException).path ?? null });
      throw internalError();
    }
  }

}

/** A request's params as its method's schema reads them (omitted params are `{}`); -32602 naming the field path otherwise. */
function validParams(spec: RequestSpec, method: string, rawParams: unknown): unknown {
  const parsed = spec.params.safeParse(rawParams ?? {});
  if (!parsed.success) throw invalidParams(method, parsed.error);
  return parsed.data;
}

/**
 * The queue a request waits in, from its method's scope: a thread's, or none (see
 * {@link RequestSpec.scope}). A `thread` request's id is checked here, once for every method.
 */
function orderingKey(spec: RequestSpec, params: unknown): string | undefined {
  if (spec.scope === "concurrent") return undefined;
  const threadId = (params as { threadId?: unknown }).threadId;
  if (typeof threadId !== "string") return undefined;
  if (spec.scope === "thread") checkThreadId(threadId);
  return `thread:${threadId}`;
}
