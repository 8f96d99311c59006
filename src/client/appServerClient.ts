import { fileURLToPath } from "node:url";
import { PassThrough } from "node:stream";
import type { Readable, Writable } from "node:stream";
// The generated wire types, not the zod schemas: the client's declarations stay plain TypeScript.
import type {
  ClientRequestMethod,
  ClientRequestParams,
  ClientRequestResult,
  ServerNotification,
  ServerNotificationMethod,
  ServerNotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
  UserInput,
} from "../protocol/types.js";
import { spawnTransport, streamTransport, webSocketTransport, type ClientTransport, type StderrTarget } from "./clientTransport.js";

/** What a request of `method` takes: the generated wire type of its params. */
type ClientRequestInput<M extends ClientRequestMethod> = ClientRequestParams<M>;

// ---------------------------------------------------------------------------------------- errors

/** Base class of every error the client raises on purpose. */
export class ClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A JSON-RPC error the server answered with, as an exception carrying its code. */
export class AppServerError extends ClientError {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The connection ended (the server exited or the client closed) before an answer came (code -32000). */
export class ConnectionClosedError extends AppServerError {
  constructor(message: string) {
    super(message, CONNECTION_CLOSED);
  }
}

/** No answer (or event) came within its timeout. The server is not told; its work goes on. */
export class RequestTimeoutError extends ClientError {
  constructor(
    message: string,
    /** The request's method, or the notification waited for. */
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(message);
  }
}

/**
 * A turn ran past its timeout: the client sent `turn/interrupt` and waited for `turn/completed`.
 * `turn` is the turn as it ended (status `interrupted`, usually), or null when the turn had not
 * started (`turnId` null) or the server did not confirm the end in time.
 */
export class TurnTimeoutError extends RequestTimeoutError {
  constructor(
    readonly threadId: string,
    readonly turnId: string | null,
    timeoutMs: number,
    readonly turn: Turn | null,
  ) {
    super(`turn ${turnId ?? "(not started)"} of thread ${threadId} did not complete within ${timeoutMs} ms; it was interrupted`, "turn/start", timeoutMs);
  }
}

/**
 * The caller's `AbortSignal` fired: the wait stopped (a request's answer is then ignored; a turn
 * is interrupted first, and `turn` is the turn as it ended, or null). `reason` is the signal's.
 */
export class AbortedError extends ClientError {
  constructor(
    message: string,
    readonly reason: unknown,
    readonly turn: Turn | null = null,
  ) {
    super(message, { cause: reason });
    this.name = "AbortError";
  }
}

const CONNECTION_CLOSED = -32000;
const METHOD_NOT_FOUND = -32601;
const INTERNAL_ERROR = -32603;

// ---------------------------------------------------------------------------------------- types

/** Who the client says it is in `initialize`. */
export interface ClientInfo {
  readonly name: string;
  readonly title?: string;
  readonly version: string;
}

/** A notification as the client receives it, narrowed by `method`. */
export type ServerEvent = ServerNotification;

/** A turn as `turn/start` and `turn/completed` carry it. */
export type Turn = ServerNotificationParams<"turn/completed">["turn"];

/** Limits of one wait: `timeoutMs` (null: none; default the client's) and a caller's `signal`. */
export interface RequestOptions {
  readonly timeoutMs?: number | null | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Limits of one `runTurn`: `timeoutMs` bounds the whole turn (default the client's `turnTimeoutMs`). */
export type TurnOptions = RequestOptions;

/** What a server request's handler gets besides its params. */
export interface ServerRequestContext {
  /** The request's JSON-RPC id. */
  readonly id: string | number;
  readonly method: string;
  /**
   * Aborted when the answer is no longer wanted: the server sent `serverRequest/resolved` for it
   * (another client answered, or the turn ended and the request was withdrawn), or the connection ended.
   */
  readonly signal: AbortSignal;
}

/** Answers server request `M` (a thrown error answers -32603 with its message). */
export type ServerRequestHandler<M extends ServerRequestMethod> = (
  params: ServerRequestParams<M>,
  context: ServerRequestContext,
) => ServerRequestResult<M> | Promise<ServerRequestResult<M>>;

/** Answers a server request of a method this protocol version does not type (a Codex extension). */
export type UntypedRequestHandler = (params: unknown, context: ServerRequestContext) => unknown;

type Awaitable<T> = T | Promise<T>;
export type CommandApprovalDecision = ServerRequestResult<"item/commandExecution/requestApproval">["decision"];
export type FileChangeApprovalDecision = ServerRequestResult<"item/fileChange/requestApproval">["decision"];
export type CommandApprovalHandler = (
  params: ServerRequestParams<"item/commandExecution/requestApproval">,
  context: ServerRequestContext,
) => Awaitable<CommandApprovalDecision>;
export type FileChangeApprovalHandler = (
  params: ServerRequestParams<"item/fileChange/requestApproval">,
  context: ServerRequestContext,
) => Awaitable<FileChangeApprovalDecision>;
/** Runs a dynamic tool: its result, or a string (a successful text result); a thrown error fails the call with its message. */
export type ToolCallHandler = (
  params: ServerRequestParams<"item/tool/call">,
  context: ServerRequestContext,
) => Awaitable<ServerRequestResult<"item/tool/call"> | string>;
export type UserInputHandler = ServerRequestHandler<"item/tool/requestUserInput">;

/** Something an in-process server offers: serving one client over a pair of streams. */
export interface StreamServer {
  connect(input: Readable, output: Writable): unknown;
}

/** Options every way of making a client takes. */
export interface AppServerClientOptions {
  /** Who the client says it is; null sends no `initialize` (call {@link AppServerClient.initialize} yourself). */
  readonly clientInfo?: ClientInfo | null | undefined;
  /** `initialize.capabilities` (`{ experimentalApi: true }` for dynamic tools, …). */
  readonly capabilities?: ClientRequestInput<"initialize">["capabilities"];
  /** Default bound on each request's answer, in ms (null: none). Default 60 000. */
  readonly requestTimeoutMs?: number | null | undefined;
  /** Default bound on a whole `runTurn`, in ms (null: none), after which the turn is interrupted. Default null. */
  readonly turnTimeoutMs?: number | null | undefined;
  /** After a turn's timeout or abort: how long to wait for `turn/interrupt`'s answer and `turn/completed`. Default 10 000. */
  readonly interruptTimeoutMs?: number | undefined;
  /** Incoming text that is not a JSON message (default: a process warning). */
  readonly onProtocolError?: ((text: string) => void) | undefined;
}

/** Options of {@link AppServerClient.spawn}. */
export interface SpawnOptions extends AppServerClientOptions {
  /** The whole command (default `node <this package>/dist/cli.js app-server`). */
  readonly command?: readonly string[] | undefined;
  /** Arguments appended to the default command (ignored with `command`). */
  readonly args?: readonly string[] | undefined;
  readonly cwd?: string | undefined;
  /** The server's environment (default ours). */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /**
   * Where the server's stderr (its log) goes: `"ignore"` (default), `"inherit"`, or a function
   * called with each line. Except when inherited, its last lines are quoted in the
   * {@link ConnectionClosedError} of an unexpected exit.
   */
  readonly stderr?: StderrTarget | undefined;
  /** How long `close()` waits for the exit after closing stdin, before SIGTERM (then SIGKILL 2 s later). Default 3000 ms. */
  readonly closeTimeoutMs?: number | undefined;
}

/** Options of {@link AppServerClient.connect}. */
export interface ConnectOptions extends AppServerClientOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string | undefined;
  readonly headers?: Record<string, string> | undefined;
}

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

// ---------------------------------------------------------------------------------------- turn queues

/** Why a turn is being stopped: its timeout, or the caller's abort. */
type Stop = { readonly kind: "timeout" } | { readonly kind: "abort"; readonly reason: unknown };

type QueueEntry = { readonly event: ServerEvent } | { readonly release: () => void };

/**
 * The events of one running `runTurn`, queued until its consumer pulls them, with barriers for
 * server requests: a request of the turn's thread is handled only once the consumer has taken
 * every event queued before it and come back for more (see {@link AppServerClient.runTurn}).
 */
class TurnQueue {
  turnId: string | null = null;
  ended: Error | null = null;
  /** Whether server requests of this thread wait for this queue; false once the turn ended or was stopped. */
  private gating = true;
  /** Whether the turn's `turn/completed` has been queued (nothing more is). */
  completed = false;
  private entries: QueueEntry[] = [];
  private waker: (() => void) | null = null;

  constructor(readonly threadId: string) {}

  /** Whether `event` is of this turn (an event naming no turn is of the thread's current one). */
  belongs(event: ServerEvent): boolean {
    const params = event.params as { threadId?: string; turnId?: string; turn?: { id: string } };
    if (params.threadId !== this.threadId) return false;
    const id = params.turnId ?? params.turn?.id;
    return id === undefined || this.turnId === null || id === this.turnId;
  }

  offer(event: ServerEvent): void {
    if (this.completed || this.ended || !this.belongs(event)) return;
    this.entries.push({ event });
    if (event.method === "turn/completed" && this.turnId !== null && event.params.turn.id === this.turnId) {
      this.completed = true;
      this.gating = false;
    }
    this.wake();
  }

  /** Queues a barrier for a server request; false (and nothing queued) when this queue gates nothing. */
  addBarrier(release: () => void): boolean {
    if (!this.gating || this.ended) return false;
    this.entries.push({ release });
    this.wake();
    return true;
  }

  shift(): QueueEntry | undefined {
    return this.entries.shift();
  }

  /** Stops gating server requests and lets those waiting on this queue go. */
  stopGating(): void {
    this.gating = false;
    const barriers = this.entries.filter((entry): entry is { release: () => void } => "release" in entry);
    this.entries = this.entries.filter((entry) => !("release" in entry));
    for (const barrier of barriers) barrier.release();
  }

  end(error: Error): void {
    this.ended ??= error;
    this.stopGating();
    this.wake();
  }

  close(): void {
    this.stopGating();
    this.entries = [];
  }

  wait(): Promise<void> {
    return new Promise((resolve) => (this.waker = resolve));
  }

  wake(): void {
    const waker = this.waker;
    this.waker = null;
    waker?.();
  }
}

/**
 * The notifications of one turn, up to and including `turn/completed`: an async iterator
 * (`for await`), with the turn's id once started, the final turn once completed, `interrupt()` and
 * `text()`.
 */
export class TurnEvents implements AsyncIterableIterator<ServerEvent> {
  /** The turn's id, once `turn/start` has been answered. */
  turnId: string | null = null;
  /** The turn as it ended, once `turn/completed` has come. */
  turn: Turn | null = null;
  private readonly generator: AsyncGenerator<ServerEvent, void, undefined>;

  /** @internal Made by {@link AppServerClient.runTurn}. */
  constructor(
    readonly threadId: string,
    run: (self: TurnEvents) => AsyncGenerator<ServerEvent, void, undefined>,
    private readonly interruptTurn: (threadId: string, turnId: string) => Promise<unknown>,
  ) {
    this.generator = run(this);
  }

  next(): Promise<IteratorResult<ServerEvent, void>> {
    return this.generator.next();
  }

  /** Stops listening (as `break` does); the turn goes on in the server unless interrupted. */
  return(): Promise<IteratorResult<ServerEvent, void>> {
    return this.generator.return(undefined);
  }

  throw(error?: unknown): Promise<IteratorResult<ServerEvent, void>> {
    return this.generator.throw(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Sends `turn/interrupt` for this turn (once started); keep iterating to see it end `interrupted`. */
  async interrupt(): Promise<void> {
    if (this.turnId === null) throw new ClientError("the turn has not started yet (iterate first)");
    await this.interruptTurn(this.threadId, this.turnId);
  }

  /** Runs the turn to its end and returns its agent text (see {@link AppServerClient.collectText}). */
  text(): Promise<string> {
    return AppServerClient.collectText(this);
  }
}

/**
 * The notifications (those `accept` takes) from the moment of subscribing, queued until read:
 * `for await (const event of subscription)` (ends when the connection ends or on `close()`), or
 * `await subscription.nextEvent({ timeoutMs, signal })`. Close it when done.
 */
export class EventSubscription implements AsyncIterableIterator<ServerEvent> {
  private readonly queue: ServerEvent[] = [];
  private readonly wakers = new Set<() => void>();
  private ended: Error | null = null;
  private closed = false;

  /** @internal Made by {@link AppServerClient.subscribe}. */
  constructor(
    private readonly accept: (event: ServerEvent) => boolean,
    private readonly detach: (subscription: EventSubscription) => void,
    private readonly defaultTimeoutMs: number | null,
  ) {}

  /** @internal */
  offer(event: ServerEvent): void {
    if (this.closed || !this.accept(event)) return;
    this.queue.push(event);
    this.wake();
  }

  /** @internal */
  end(error: Error): void {
    this.ended ??= error;
    this.wake();
  }

  /** The next event; `done` once the connection has ended (or the subscription is closed) and the queue is empty. */
  async next(): Promise<IteratorResult<ServerEvent, undefined>> {
    try {
      return { value: await this.take(null), done: false };
    } catch (error) {
      if (error === this.ended || error === CLOSED) return { value: undefined, done: true };
      throw error;
    }
  }

  /**
   * The next event. Rejects with {@link RequestTimeoutError} after `timeoutMs` (default the
   * client's `requestTimeoutMs`), {@link AbortedError} on `signal`, and the connection's error once
   * it has ended (or a {@link ClientError} once closed) with nothing left queued.
   */
  nextEvent(options: RequestOptions = {}): Promise<ServerEvent> {
    return this.take(options.timeoutMs === undefined ? this.defaultTimeoutMs : options.timeoutMs, options.signal);
  }

  private async take(timeoutMs: number | null, signal?: AbortSignal): Promise<ServerEvent> {
    if (signal?.aborted) throw new AbortedError("the wait for a notification was aborted", signal.reason);
    const started = Date.now();
    for (;;) {
      const event = this.queue.shift();
      if (event) return event;
      if (this.closed) throw CLOSED;
      if (this.ended) throw this.ended;
      await new Promise<void>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const done = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          this.wakers.delete(wake);
        };
        const wake = (): void => {
          done();
          resolve();
        };
        const onAbort = (): void => {
          done();
          reject(new AbortedError("the wait for a notification was aborted", signal!.reason));
        };
        this.wakers.add(wake);
        signal?.addEventListener("abort", onAbort, { once: true });
        if (timeoutMs !== null && Number.isFinite(timeoutMs)) {
          timer = setTimeout(() => {
            done();
            reject(new RequestTimeoutError(`no notification arrived within ${timeoutMs} ms`, "subscription", timeoutMs));
          }, Math.max(0, started + timeoutMs - Date.now()));
        }
      });
    }
  }

  /** Stops queueing (what is queued can still be read). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.detach(this);
    this.wake();
  }

  async return(): Promise<IteratorResult<ServerEvent, undefined>> {
    this.close();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private wake(): void {
    for (const wake of [...this.wakers]) wake();
  }
}

/** What a closed subscription's waits end with. */
const CLOSED = new ClientError("the subscription is closed");

// ---------------------------------------------------------------------------------------- client

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
  static async collectText(events: AsyncIterable<ServerEvent>): Promise<string> {
    const texts: string[] = [];
    for await (const event of events) {
      if (event.method === "item/completed" && event.params.item.type === "agentMessage") texts.push(event.params.item.text);
    }
    return texts.join("\n\n");
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
