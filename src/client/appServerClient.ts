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
import { AbortedError, AppServerError, ConnectionClosedError, INTERNAL_ERROR, RequestTimeoutError, TurnTimeoutError, type TurnFailedError } from "./clientErrors.js";
import type { AppServerClientOptions, ClientInfo, CommandApprovalHandler, ConnectOptions, FileChangeApprovalHandler, RequestOptions, ServerEvent, ServerRequestHandler, SpawnOptions, StreamServer, ToolCallHandler, TurnOptions, UntypedRequestHandler, UserInputHandler } from "./clientTypes.js";
import { collectText, EventSubscription, TurnEvents, type TurnQueue } from "./turnEvents.js";
import { turnRun, type TurnHost } from "./turnRun.js";
import { COMMAND_APPROVAL, FILE_CHANGE_APPROVAL, ServerRequests } from "./serverRequests.js";

export * from "./clientErrors.js";
export type * from "./clientTypes.js";
export { EventSubscription, TurnEvents } from "./turnEvents.js";

const DEFAULT_CLIENT: ClientInfo = { name: "agent_app_server_client", title: "agent-app-server client", version: "1.0.0" };
const CLI = fileURLToPath(new URL("../cli.cjs", import.meta.url));

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
  private readonly turnQueues = new Set<TurnQueue>();
  private readonly serverRequests: ServerRequests;
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
    this.serverRequests = new ServerRequests((message) => transport.send(message), () => this.ended, this.turnQueues);
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

  /**
   * Stops reading the server's messages until {@link resumeReading}: for a consumer that cannot keep
   * up (an editor that stopped reading what it is sent). The server then holds its turns' output,
   * as it does for any slow client, instead of this process holding it. Responses wait too.
   */
  pauseReading(): void {
    this.transport.pause();
  }

  /** Reads the server's messages again, after {@link pauseReading}. */
  resumeReading(): void {
    this.transport.resume();
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
    return this.serverRequests.add(method, handler);
  }

  /** Sets (or, with null, removes) the handler of server requests of `method` (see {@link onRequest}). */
  setRequestHandler<M extends ServerRequestMethod>(method: M, handler: ServerRequestHandler<M> | null): void;
  setRequestHandler(method: string, handler: UntypedRequestHandler | null): void;
  setRequestHandler(method: string, handler: UntypedRequestHandler | null): void {
    this.serverRequests.set(method, handler);
  }

  /** Decides command approvals (`item/commandExecution/requestApproval`); null restores the default, which declines. */
  onCommandApproval(handler: CommandApprovalHandler | null): () => void {
    return this.serverRequests.set(COMMAND_APPROVAL, handler && (async (params, context) => ({ decision: await handler(params as never, context) })));
  }

  /** Decides file change approvals (`item/fileChange/requestApproval`); null restores the default, which declines. */
  onFileChangeApproval(handler: FileChangeApprovalHandler | null): () => void {
    return this.serverRequests.set(FILE_CHANGE_APPROVAL, handler && (async (params, context) => ({ decision: await handler(params as never, context) })));
  }

  /**
   * Runs the client's dynamic tools (`item/tool/call`; tools declared in `thread/start.dynamicTools`,
   * which needs `capabilities.experimentalApi`). A string result is a successful text result; a
   * thrown error answers `success: false` with its message, which the model sees.
   */
  onToolCall(handler: ToolCallHandler | null): () => void {
    return this.serverRequests.set(
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
    return this.serverRequests.set("item/tool/requestUserInput", handler as UntypedRequestHandler | null);
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
    const host: TurnHost = {
      ended: () => this.ended,
      turnTimeoutMs: this.turnTimeoutMs,
      interruptTimeoutMs: this.interruptTimeoutMs,
      queues: this.turnQueues,
      startTurn: (start, stop, onLate) => this.call("turn/start", start, { signal: stop }, onLate) as Promise<ClientRequestResult<"turn/start">>,
      interruptTurn: (thread, turn, timeoutMs) => this.interruptTurn(thread, turn, { timeoutMs }),
    };
    return new TurnEvents(threadId, (run) => turnRun(host, run, params, options), (thread, turn) => this.interruptTurn(thread, turn));
  }

  /**
   * The agent's text of a turn's events: every `agentMessage` item, in order, joined by blank
   * lines. A turn that ends `failed` or `interrupted` rejects with a {@link TurnFailedError}
   * (`.turn`, `.error`) instead: its partial text is no answer.
   */
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
      if (id !== undefined) this.serverRequests.receive(id as string | number, method, message.params);
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
    if (event.method === "serverRequest/resolved") this.serverRequests.resolved(event.params.requestId);
    for (const subscription of this.subscriptions) {
      try {
        subscription.offer(event);
      } catch (error) {
        report(error);
      }
    }
    for (const queue of this.turnQueues) queue.offer(event);
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
    this.serverRequests.end(error);
    for (const wake of [...this.endWaiters]) wake(error);
  }
}
