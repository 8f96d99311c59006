import {
  fileURLToPath,
} from "node:url";
import {
  PassThrough,
} from "node:stream";

// The generated wire types, not the zod schemas: the client's declarations stay plain TypeScript.
import type {
  ClientRequestMethod,
  ClientRequestParams,
  ClientRequestResult,
  ServerNotificationMethod,
  ServerNotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
  UserInput,
} from "../protocol/types.js";
import {
  spawnTransport,
  streamTransport,
  webSocketTransport,
  type ClientTransport,
} from "./clientTransport.js";

/** What a request of `method` takes: the generated wire type of its params. */
type ClientRequestInput<M extends ClientRequestMethod> = ClientRequestParams<M>;
import {
  AbortedError,
  AppServerError,
  ClientError,
  ConnectionClosedError,
  INTERNAL_ERROR,
  METHOD_NOT_FOUND,
  RequestTimeoutError,
  TurnTimeoutError,
} from "./clientErrors.js";
import type {
  AppServerClientOptions,
  ClientInfo,
  CommandApprovalHandler,
  ConnectOptions,
  FileChangeApprovalHandler,
  RequestOptions,
  ServerEvent,
  ServerRequestHandler,
  SpawnOptions,
  StreamServer,
  ToolCallHandler,
  Turn,
  TurnOptions,
  UntypedRequestHandler,
  UserInputHandler,
} from "./clientTypes.js";
import {
  collectText,
  EventSubscription,
  TurnEvents,
  TurnQueue,
  type Stop,
} from "./turnEvents.js";

export * from "./clientErrors.js";
export type * from "./clientTypes.js";
export { EventSubscription, TurnEvents } from "./turnEvents.js";

const DEFAULT_CLIENT: ClientInfo = { name: "agent_app_server_client", title: "agent-app-server client", version: "1.0.0" };
const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
const COMMAND_APPROVAL = "item/commandExecution/requestApproval";
const FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval";
/** What a request nobody handles is answered with, when not -32601: approvals are declined. */
const DEFAULT_ANSWERS: Record<string, unknown> = {
  [COMMAND_APPROVAL]: { decision: "decline" },
  [FILE_CHANGE_APPROVAL]: { decision: "decline" },
};

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * A typed client of the app-server protocol: spawns a server (or connects to `ws://` or an
 * in-process server), initializes, and offers typed requests with timeouts and abort signals,
 * typed notification events, handlers for every server request (approvals decline unless set;
 * other requests nobody handles are answered -32601), and turns as async iterators. It depends
 * only on the protocol.
 *
 * Ordering: messages are dispatched in the order they arrive. Notifications reach `on`/`onAny`
 * listeners at once. A server request about a thread is handed to its handler only after every
 * `runTurn` iterating that thread has yielded the events that arrived before it and its consumer
 * has come back for the next one, so a consumer always sees, say, `item/started` of a command
 * before that command's approval handler runs.
 */
export class AppServerClient {
  /** The answer to `initialize`, once initialized. */
  initializeResult: ClientRequestResult<"initialize"> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Requests given up on (timed out, aborted) whose late answer still matters. */
  private readonly late = new Map<number, (result: unknown) => void>();
  private readonly listeners = new Map<string, Set<(params: never) => void>>();
  private readonly anyListeners = new Set<(event: ServerEvent) => void>();
  private readonly requestHandlers = new Map<string, UntypedRequestHandler>();
  /** Server requests being handled, by id: aborted when the server resolves them or the connection ends. */
  private readonly handling = new Map<string | number, AbortController>();
  private readonly turnQueues = new Set<TurnQueue>();
  private readonly subscriptions = new Set<EventSubscription>();
  private readonly endWaiters = new Set<(error: Error) => void>();
  private ended: ConnectionClosedError | null = null;
  private closing = false;
  private readonly requestTimeoutMs: number | null;
  private readonly turnTimeoutMs: number | null;
  private readonly interruptTimeoutMs: number;
  private protocolError: (text: string) => void = (text) =>
    process.emitWarning(`agent-app-server sent something that is not a JSON-RPC message: ${text.slice(0, 200)}`, "ProtocolWarning");

  private constructor(
    private readonly transport: ClientTransport,
    options: AppServerClientOptions,
  ) {
    this.requestTimeoutMs = options.requestTimeoutMs === undefined ? 60_000 : options.requestTimeoutMs;
    this.turnTimeoutMs = options.turnTimeoutMs ?? null;
    this.interruptTimeoutMs = options.interruptTimeoutMs ?? 10_000;
    if (options.onProtocolError) this.protocolError = options.onProtocolError;
    transport.onMessage((message) => this.receive(message));
    transport.onProtocolError((text) => this.protocolError(text));
    transport.onClose((reason) => this.end(new ConnectionClosedError(this.closing ? "the client closed the connection" : reason)));
  }

  /** Spawns `agent-app-server app-server` (or `command`) and initializes. */
  static async spawn(options: SpawnOptions = {}): Promise<AppServerClient> {
    const command = options.command ?? [process.execPath, CLI, "app-server", ...(options.args ?? [])];
    const transport = spawnTransport(command, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stderr: options.stderr,
      closeTimeoutMs: options.closeTimeoutMs,
    });
    return AppServerClient.start(transport, options);
  }

  /** Connects to a server listening on `ws://host:port` and initializes. */
  static async connect(url: string, options: ConnectOptions = {}): Promise<AppServerClient> {
    const headers = { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };
    return AppServerClient.start(await webSocketTransport(url, { headers }), options);
  }

  /** Connects to an in-process server over a pair of in-memory streams and initializes. */
  static async inProcess(server: StreamServer, options: AppServerClientOptions = {}): Promise<AppServerClient> {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    server.connect(toServer, fromServer);
    const transport = streamTransport(fromServer, toServer, async () => void toServer.end());
    return AppServerClient.start(transport, options);
  }

  /** Wraps any transport and initializes (unless `clientInfo` is null); a failed initialize closes it. */
  static async start(transport: ClientTransport, options: AppServerClientOptions = {}): Promise<AppServerClient> {
    const client = new AppServerClient(transport, options);
    if (options.clientInfo !== null) {
      try {
        await client.initialize(options.clientInfo ?? DEFAULT_CLIENT, options.capabilities);
      } catch (error) {
        await client.close();
        throw error;
      }
    }
    return client;
  }

  /** `initialize` then the `initialized` notification (done by spawn/connect/inProcess/start). */
  async initialize(clientInfo: ClientInfo = DEFAULT_CLIENT, capabilities?: ClientRequestInput<"initialize">["capabilities"]): Promise<ClientRequestResult<"initialize">> {
    const result = await this.request("initialize", capabilities === undefined ? { clientInfo } : { clientInfo, capabilities });
    this.notify("initialized");
    this.initializeResult = result;
    return result;
  }

  /** True once the connection has ended (closed by us, or by the server). */
  get closed(): boolean {
    return this.ended !== null;
  }

  /** The spawned server's process id (undefined for other transports). */
  get pid(): number | undefined {
    return this.transport.pid;
  }

  // ------------------------------------------------------------------------------ requests

  /**
   * Sends a request and resolves with its typed result. An error answer rejects with
   * {@link AppServerError}; no answer within `timeoutMs` (default the client's `requestTimeoutMs`)
   * with {@link RequestTimeoutError}; the `signal` firing with {@link AbortedError}; the connection
   * ending with {@link ConnectionClosedError}. Giving up does not cancel the server's work.
   */
  request<M extends ClientRequestMethod>(method: M, params: ClientRequestInput<M>, options: RequestOptions = {}): Promise<ClientRequestResult<M>> {
    return this.call(method, params, options) as Promise<ClientRequestResult<M>>;
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): void {
    if (this.ended) throw this.ended;
    this.transport.send(params === undefined ? { method } : { method, params });
  }

  private call(method: string, params: unknown, options: RequestOptions, onLate?: (result: unknown) => void): Promise<unknown> {
    if (this.ended) return Promise.reject(this.ended);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new AbortedError(`${method} was aborted before it was sent`, signal.reason));
    const timeoutMs = options.timeoutMs === undefined ? this.requestTimeoutMs : options.timeoutMs;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
      };
      const giveUp = (error: Error): void => {
        finish();
        if (onLate) this.late.set(id, onLate);
        reject(error);
      };
      const onAbort = (): void => giveUp(new AbortedError(`${method} (request ${id}) was aborted`, signal!.reason));
      this.pending.set(id, {
        resolve: (value) => {
          finish();
          resolve(value);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      if (timeoutMs !== null && Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => giveUp(new RequestTimeoutError(`no answer to ${method} (request ${id}) within ${timeoutMs} ms`, method, timeoutMs)), timeoutMs);
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.transport.send(params === undefined ? { id, method } : { id, method, params });
    });
  }

  /** Starts a thread. */
  startThread(params: ClientRequestInput<"thread/start"> = {}, options?: RequestOptions): Promise<ClientRequestResult<"thread/start">> {
    return this.request("thread/start", params, options);
  }

  /** Resumes a stored thread (and subscribes to it). */
  resumeThread(
    threadId: string,
    params: Omit<ClientRequestInput<"thread/resume">, "threadId"> = {},
    options?: RequestOptions,
  ): Promise<ClientRequestResult<"thread/resume">> {
    return this.request("thread/resume", { ...params, threadId } as ClientRequestInput<"thread/resume">, options);
  }

  /** Sends `turn/interrupt`. */
  async interruptTurn(threadId: string, turnId: string, options?: RequestOptions): Promise<void> {
    await this.request("turn/interrupt", { threadId, turnId }, options);
  }

  // ------------------------------------------------------------------------------ notifications

  /** Handles text from the server that is not a JSON message (default: a process warning). */
  onProtocolError(handler: (text: string) => void): void {
    this.protocolError = handler;
  }

  /** Calls `handler` for every notification of `method`; returns a function that stops it. */
  on<M extends ServerNotificationMethod>(method: M, handler: (params: ServerNotificationParams<M>) => void): () => void {
    const set = this.listeners.get(method) ?? new Set();
    set.add(handler as (params: never) => void);
    this.listeners.set(method, set);
    return () => void set.delete(handler as (params: never) => void);
  }

  /** Calls `handler` for every notification; returns a function that stops it. */
  onAny(handler: (event: ServerEvent) => void): () => void {
    this.anyListeners.add(handler);
    return () => void this.anyListeners.delete(handler);
  }

  /**
   * The params of the next notification of `method` (that `predicate` accepts) from now on.
   * Rejects after `timeoutMs` (default the client's `requestTimeoutMs`), on `signal`, or when the
   * connection ends. Call it before doing what causes the notification.
   */
  waitFor<M extends ServerNotificationMethod>(
    method: M,
    predicate: (params: ServerNotificationParams<M>) => boolean = () => true,
    options: RequestOptions = {},
  ): Promise<ServerNotificationParams<M>> {
    if (this.ended) return Promise.reject(this.ended);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new AbortedError(`the wait for ${method} was aborted`, signal.reason));
    const timeoutMs = options.timeoutMs === undefined ? this.requestTimeoutMs : options.timeoutMs;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        stop();
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.endWaiters.delete(onEnd);
      };
      const stop = this.on(method, (params) => {
        let wanted: boolean;
        try {
          wanted = predicate(params);
        } catch (error) {
          done();
          reject(error as Error);
          return;
        }
        if (!wanted) return;
        done();
        resolve(params);
      });
      const onAbort = (): void => {
        done();
        reject(new AbortedError(`the wait for ${method} was aborted`, signal!.reason));
      };
      const onEnd = (error: Error): void => {
        done();
        reject(error);
      };
      this.endWaiters.add(onEnd);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== null && Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          done();
          reject(new RequestTimeoutError(`no ${method} notification within ${timeoutMs} ms`, method, timeoutMs));
        }, timeoutMs);
      }
    });
  }

  /**
   * Queues the notifications of `methods` (one, several, or all when omitted) that `predicate`
   * accepts, from now on, until the subscription is closed: subscribe before doing what causes them.
   */
  subscribe(filter: { methods?: ServerNotificationMethod | readonly ServerNotificationMethod[]; predicate?: (event: ServerEvent) => boolean } = {}): EventSubscription {
    const methods = filter.methods === undefined ? null : new Set(typeof filter.methods === "string" ? [filter.methods] : filter.methods);
    const accept = (event: ServerEvent): boolean => (methods === null || methods.has(event.method)) && (filter.predicate?.(event) ?? true);
    const subscription = new EventSubscription(accept, (sub) => this.subscriptions.delete(sub), this.requestTimeoutMs);
    if (this.ended) subscription.end(this.ended);
    else this.subscriptions.add(subscription);
    return subscription;
  }

  // ------------------------------------------------------------------------------ server requests

  /**
   * Answers server requests of `method` with `handler(params, { id, method, signal })`'s result
   * (awaited; a thrown error answers -32603 with its message). Replaces the method's handler;
   * returns a function that removes it (if still set). Requests nobody handles are answered
   * -32601, approvals excepted: those are declined.
   */
  onRequest<M extends ServerRequestMethod>(method: M, handler: ServerRequestHandler<M>): () => void;
  onRequest(method: string, handler: UntypedRequestHandler): () => void;
  onRequest(method: string, handler: UntypedRequestHandler): () => void {
    this.requestHandlers.set(method, handler);
    return () => {
      if (this.requestHandlers.get(method) === handler) this.requestHandlers.delete(method);
    };
  }

  /** Sets (or, with null, removes) the handler of server requests of `method` (see {@link onRequest}). */
  setRequestHandler<M extends ServerRequestMethod>(method: M, handler: ServerRequestHandler<M> | null): void;
  setRequestHandler(method: string, handler: UntypedRequestHandler | null): void;
  setRequestHandler(method: string, handler: UntypedRequestHandler | null): void {
    if (handler) this.requestHandlers.set(method, handler);
    else this.requestHandlers.delete(method);
  }

  /** Decides command approvals (`item/commandExecution/requestApproval`); null restores the default, which declines. */
  onCommandApproval(handler: CommandApprovalHandler | null): () => void {
    return this.typedHandler(COMMAND_APPROVAL, handler && (async (params, context) => ({ decision: await handler(params as never, context) })));
  }

  /** Decides file change approvals (`item/fileChange/requestApproval`); null restores the default, which declines. */
  onFileChangeApproval(handler: FileChangeApprovalHandler | null): () => void {
    return this.typedHandler(FILE_CHANGE_APPROVAL, handler && (async (params, context) => ({ decision: await handler(params as never, context) })));
  }

  /**
   * Runs the client's dynamic tools (`item/tool/call`; tools declared in `thread/start.dynamicTools`,
   * which needs `capabilities.experimentalApi`). A string result is a successful text result; a
   * thrown error answers `success: false` with its message, which the model sees.
   */
  onToolCall(handler: ToolCallHandler | null): () => void {
    return this.typedHandler(
      "item/tool/call",
      handler &&
        (async (params, context) => {
          try {
            const result = await handler(params as ServerRequestParams<"item/tool/call">, context);
            return typeof result === "string" ? { contentItems: [{ type: "inputText", text: result }], success: true } : result;
          } catch (error) {
            return { contentItems: [{ type: "inputText", text: error instanceof Error ? error.message : String(error) }], success: false };
          }
        }),
    );
  }

  /** Answers the model's questions to the user (`item/tool/requestUserInput`): `{ answers: { [questionId]: { answers: [...] } } }`. */
  onUserInput(handler: UserInputHandler | null): () => void {
    return this.typedHandler("item/tool/requestUserInput", handler as UntypedRequestHandler | null);
  }

  private typedHandler(method: string, handler: UntypedRequestHandler | null): () => void {
    if (handler) return this.onRequest(method, handler);
    this.requestHandlers.delete(method);
    return () => undefined;
  }

  // ------------------------------------------------------------------------------ turns

  /**
   * Starts a turn and yields its notifications up to and including `turn/completed`. Text input
   * may be given as a string. The turn starts when iteration begins.
   *
   * `options.timeoutMs` (default the client's `turnTimeoutMs`) bounds the whole turn and
   * `options.signal` aborts it: either sends `turn/interrupt`, waits (up to `interruptTimeoutMs`)
   * for `turn/completed`, then rejects with {@link TurnTimeoutError} or {@link AbortedError}
   * carrying the turn as it ended. Events after the timeout or abort are not yielded (listeners
   * still get them).
   *
   * A server request of this thread (an approval, a tool call) is handled only after this
   * iterator has yielded every event that arrived before it and its consumer has asked for the
   * next one: iterate to the end, or `break` (which releases it), rather than leaving it hanging.
   */
  runTurn(
    threadId: string,
    input: string | UserInput[],
    overrides: Omit<ClientRequestInput<"turn/start">, "threadId" | "input"> = {},
    options: TurnOptions = {},
  ): TurnEvents {
    const items = typeof input === "string" ? [{ type: "text" as const, text: input }] : input;
    const params = { ...overrides, threadId, input: items } as ClientRequestInput<"turn/start">;
    return new TurnEvents(threadId, (run) => this.turnEvents(run, params, options), (thread, turn) => this.interruptTurn(thread, turn));
  }

  private async *turnEvents(run: TurnEvents, params: ClientRequestInput<"turn/start">, options: TurnOptions): AsyncGenerator<ServerEvent, void, undefined> {
    const threadId = run.threadId;
    const { signal } = options;
    if (signal?.aborted) throw new AbortedError(`the turn was aborted before it started`, signal.reason);
    if (this.ended) throw this.ended;
    const timeoutMs = options.timeoutMs === undefined ? this.turnTimeoutMs : options.timeoutMs;
    const queue = new TurnQueue(threadId);
    const state: { stop: Stop | null; gaveUp: boolean } = { stop: null, gaveUp: false };
    const stopStart = new AbortController();
    let deadline: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    const interrupt = (turnId: string): void => {
      this.interruptTurn(threadId, turnId, { timeoutMs: this.interruptTimeoutMs }).catch(() => undefined);
    };
    const halt = (why: Stop): void => {
      if (state.stop) return;
      // A turn that has already completed is not stopped by its timeout (an abort still ends the wait).
      if (queue.completed && why.kind === "timeout") return;
      state.stop = why;
      queue.stopGating();
      stopStart.abort();
      if (run.turnId !== null && !queue.completed) interrupt(run.turnId);
      grace = setTimeout(() => {
        state.gaveUp = true;
        queue.wake();
      }, this.interruptTimeoutMs);
      queue.wake();
    };
    const stopped = (turn: Turn | null): Error => {
      const why = state.stop!;
      return why.kind === "timeout"
        ? new TurnTimeoutError(threadId, run.turnId, timeoutMs ?? 0, turn)
        : new AbortedError(`turn ${run.turnId ?? "(not started)"} of thread ${threadId} was aborted${turn ? "" : " (its end was not confirmed)"}`, why.reason, turn);
    };
    const onAbort = (): void => halt({ kind: "abort", reason: signal!.reason });
    signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== null && Number.isFinite(timeoutMs)) deadline = setTimeout(() => halt({ kind: "timeout" }), timeoutMs);
    this.turnQueues.add(queue);
    try {
      let started: ClientRequestResult<"turn/start">;
      try {
        // A turn/start answered after we gave up still started a turn nobody watches: interrupt it.
        started = (await this.call("turn/start", params, { signal: stopStart.signal }, (late) => {
          const id = (late as { turn?: { id?: unknown } } | null)?.turn?.id;
          if (typeof id === "string") interrupt(id);
        })) as ClientRequestResult<"turn/start">;
      } catch (error) {
        if (state.stop && error instanceof AbortedError) throw stopped(null);
        throw error;
      }
      run.turnId = queue.turnId = started.turn.id;
      if (state.stop && !queue.completed) interrupt(run.turnId);
      for (;;) {
        const entry = queue.shift();
        if (entry && "release" in entry) {
          entry.release();
          continue;
        }
        if (entry) {
          const event = entry.event;
          if (!queue.belongs(event)) continue;
          const completed = event.method === "turn/completed";
          if (completed) run.turn = event.params.turn;
          if (state.stop) {
            if (completed) throw stopped(event.params.turn);
            continue;
          }
          yield event;
          if (completed) return;
          continue;
        }
        if (state.stop && state.gaveUp) throw stopped(null);
        if (queue.ended) throw queue.ended;
        await queue.wait();
      }
    } finally {
      clearTimeout(deadline);
      clearTimeout(grace);
      signal?.removeEventListener("abort", onAbort);
      this.turnQueues.delete(queue);
      queue.close();
    }
  }

  /** The agent's text of a turn's events: every `agentMessage` item, in order, joined by blank lines. */
  static collectText(events: AsyncIterable<ServerEvent>): Promise<string> {
    return collectText(events);
  }

  /** Closes the connection (a spawned server then exits); whatever waits rejects with {@link ConnectionClosedError}. Safe to repeat. */
  async close(): Promise<void> {
    this.closing = true;
    try {
      await this.transport.close();
    } finally {
      this.end(new ConnectionClosedError("the client closed the connection"));
    }
  }

  // ------------------------------------------------------------------------------ dispatch

  private receive(message: Record<string, unknown>): void {
    if (this.ended) return;
    const { id, method } = message;
    if (typeof method === "string") {
      if (id !== undefined) this.receiveRequest(id as string | number, method, message.params);
      else this.receiveNotification({ method, params: message.params } as ServerEvent);
      return;
    }
    if (typeof id !== "number") return;
    const error = message.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    const waiter = this.pending.get(id);
    if (!waiter) {
      const late = this.late.get(id);
      this.late.delete(id);
      if (late && !error) late(message.result);
      return;
    }
    if (error) waiter.reject(new AppServerError(String(error.message ?? "error"), typeof error.code === "number" ? error.code : INTERNAL_ERROR, error.data));
    else waiter.resolve(message.result);
  }

  private receiveNotification(event: ServerEvent): void {
    const report = (error: unknown): void =>
      process.emitWarning(`a listener of ${event.method} threw: ${(error as Error)?.stack ?? String(error)}`, "AppServerClientWarning");
    for (const handler of [...(this.listeners.get(event.method) ?? [])]) {
      try {
        (handler as (params: unknown) => void)(event.params);
      } catch (error) {
        report(error);
      }
    }
    for (const handler of [...this.anyListeners]) {
      try {
        handler(event);
      } catch (error) {
        report(error);
      }
    }
    if (event.method === "serverRequest/resolved") {
      const controller = this.handling.get(event.params.requestId);
      controller?.abort(new ClientError(`the server resolved request ${event.params.requestId}`));
    }
    for (const subscription of this.subscriptions) {
      try {
        subscription.offer(event);
      } catch (error) {
        report(error);
      }
    }
    for (const queue of this.turnQueues) queue.offer(event);
  }

  /**
   * A server request is handled once every running turn of its thread (every turn, for one naming
   * no thread) has delivered the events that came before it: see {@link runTurn}.
   */
  private receiveRequest(id: string | number, method: string, params: unknown): void {
    const threadId = (params as { threadId?: unknown } | null | undefined)?.threadId;
    let waiting = 1;
    const release = (): void => {
      if (--waiting === 0) void this.answer(id, method, params);
    };
    for (const queue of this.turnQueues) {
      if (typeof threadId === "string" && queue.threadId !== threadId) continue;
      let released = false;
      if (queue.addBarrier(() => (released ? undefined : ((released = true), release())))) waiting++;
    }
    release();
  }

  private async answer(id: string | number, method: string, params: unknown): Promise<void> {
    if (this.ended) return;
    const handler = this.requestHandlers.get(method);
    if (!handler) {
      if (Object.hasOwn(DEFAULT_ANSWERS, method)) this.transport.send({ id, result: DEFAULT_ANSWERS[method] });
      else this.transport.send({ id, error: { code: METHOD_NOT_FOUND, message: `this client does not handle ${method}` } });
      return;
    }
    const controller = new AbortController();
    this.handling.set(id, controller);
    try {
      const result = await handler(params, { id, method, signal: controller.signal });
      if (!this.ended) this.transport.send({ id, result: result ?? null });
    } catch (error) {
      if (!this.ended) this.transport.send({ id, error: { code: INTERNAL_ERROR, message: error instanceof Error ? error.message : String(error) } });
    } finally {
      if (this.handling.get(id) === controller) this.handling.delete(id);
    }
  }

  private end(error: ConnectionClosedError): void {
    if (this.ended) return;
    this.ended = error;
    for (const waiter of [...this.pending.values()]) waiter.reject(error);
    this.pending.clear();
    this.late.clear();
    for (const queue of this.turnQueues) queue.end(error);
    for (const subscription of this.subscriptions) subscription.end(error);
    this.subscriptions.clear();
    for (const controller of this.handling.values()) controller.abort(error);
    for (const wake of [...this.endWaiters]) wake(error);
  }
}
