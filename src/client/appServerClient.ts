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
  ServerRequestParams,
  ServerRequestResult,
  UserInput,
} from "../protocol/types.js";
import { spawnTransport, streamTransport, webSocketTransport, type ClientTransport } from "./clientTransport.js";

/** A JSON-RPC error the server answered with, as an exception carrying its code. */
export class AppServerError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "AppServerError";
  }
}

/** Who the client says it is in `initialize`. */
export interface ClientInfo {
  readonly name: string;
  readonly title?: string;
  readonly version: string;
}

/** A notification as the client receives it, narrowed by `method`. */
export type ServerEvent = ServerNotification;

type CommandApprovalHandler = (
  params: ServerRequestParams<"item/commandExecution/requestApproval">,
) => ServerRequestResult<"item/commandExecution/requestApproval">["decision"] | Promise<ServerRequestResult<"item/commandExecution/requestApproval">["decision"]>;
type FileChangeApprovalHandler = (
  params: ServerRequestParams<"item/fileChange/requestApproval">,
) => ServerRequestResult<"item/fileChange/requestApproval">["decision"] | Promise<ServerRequestResult<"item/fileChange/requestApproval">["decision"]>;

/** Something an in-process server offers: serving one client over a pair of streams. */
export interface StreamServer {
  connect(input: Readable, output: Writable): unknown;
}

const DEFAULT_CLIENT: ClientInfo = { name: "agent_app_server_client", title: "agent-app-server client", version: "1.0.0" };
const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));

/**
 * A typed client of the app-server protocol: spawns a server (or connects to `ws://` or an
 * in-process server), initializes, and offers typed requests, typed notification events, approval
 * handlers (decline unless set) and helpers to run turns. It depends only on the protocol.
 */
export class AppServerClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly listeners = new Map<string, Set<(params: never) => void>>();
  private readonly anyListeners = new Set<(event: ServerEvent) => void>();
  private commandApproval: CommandApprovalHandler = () => "decline";
  private fileChangeApproval: FileChangeApprovalHandler = () => "decline";
  private closedReason: string | null = null;
  private readonly closeWaiters = new Set<() => void>();

  private protocolError: (text: string) => void = (text) =>
    process.emitWarning(`agent-app-server sent something that is not a JSON-RPC message: ${text.slice(0, 200)}`, "ProtocolWarning");

  private constructor(private readonly transport: ClientTransport) {
    transport.onMessage((message) => this.receive(message));
    transport.onProtocolError((text) => this.protocolError(text));
    transport.onClose((reason) => {
      this.closedReason = reason;
      for (const { reject } of this.pending.values()) reject(new AppServerError(reason, -32000));
      this.pending.clear();
      for (const wake of this.closeWaiters) wake();
    });
  }

  /** Spawns `agent-app-server app-server` (or `command`) and initializes. */
  static async spawn(
    options: { command?: readonly string[]; args?: readonly string[]; cwd?: string; env?: NodeJS.ProcessEnv; clientInfo?: ClientInfo } = {},
  ): Promise<AppServerClient> {
    const command = options.command ?? [process.execPath, CLI, "app-server", ...(options.args ?? [])];
    return AppServerClient.start(spawnTransport(command, { cwd: options.cwd, env: options.env ?? process.env }), options.clientInfo);
  }

  /** Connects to a server listening on `ws://host:port` and initializes. */
  static async connect(url: string, options: { token?: string; clientInfo?: ClientInfo } = {}): Promise<AppServerClient> {
    const headers = options.token ? { authorization: `Bearer ${options.token}` } : undefined;
    return AppServerClient.start(await webSocketTransport(url, { headers }), options.clientInfo);
  }

  /** Connects to an in-process server over a pair of in-memory streams and initializes. */
  static async inProcess(server: StreamServer, options: { clientInfo?: ClientInfo } = {}): Promise<AppServerClient> {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    server.connect(toServer, fromServer);
    const transport = streamTransport(fromServer, toServer, async () => void toServer.end());
    return AppServerClient.start(transport, options.clientInfo);
  }

  /** Wraps any transport; `initialize` is sent unless `clientInfo` is null. */
  static async start(transport: ClientTransport, clientInfo: ClientInfo | null = DEFAULT_CLIENT): Promise<AppServerClient> {
    const client = new AppServerClient(transport);
    if (clientInfo) {
      await client.request("initialize", { clientInfo });
      client.notify("initialized");
    }
    return client;
  }

  /** Sends a request and resolves with its typed result; an error answer rejects with {@link AppServerError}. */
  request<M extends ClientRequestMethod>(method: M, params: ClientRequestParams<M>): Promise<ClientRequestResult<M>> {
    if (this.closedReason) return Promise.reject(new AppServerError(this.closedReason, -32000));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.transport.send({ id, method, params });
    });
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): void {
    this.transport.send(params === undefined ? { method } : { method, params });
  }

  /** Handles text from the server that is not a JSON message (default: a process warning). */
  onProtocolError(handler: (text: string) => void): void {
    this.protocolError = handler;
  }

  /** Calls `handler` for every notification of `method`; returns a function that stops it. */
  on<M extends ServerNotificationMethod>(method: M, handler: (params: ServerNotificationParams<M>) => void): () => void {
    const set = this.listeners.get(method) ?? new Set();
    set.add(handler as (params: never) => void);
    this.listeners.set(method, set);
    return () => set.delete(handler as (params: never) => void);
  }

  /** Calls `handler` for every notification. */
  onAny(handler: (event: ServerEvent) => void): () => void {
    this.anyListeners.add(handler);
    return () => this.anyListeners.delete(handler);
  }

  /** Decides command approvals (the default declines). */
  onCommandApproval(handler: CommandApprovalHandler): void {
    this.commandApproval = handler;
  }

  /** Decides file change approvals (the default declines). */
  onFileChangeApproval(handler: FileChangeApprovalHandler): void {
    this.fileChangeApproval = handler;
  }

  /** Starts a thread. */
  startThread(params: ClientRequestParams<"thread/start"> = {}): Promise<ClientRequestResult<"thread/start">> {
    return this.request("thread/start", params);
  }

  /**
   * Starts a turn and yields its notifications up to and including `turn/completed`. Text input
   * may be given as a string.
   */
  async *runTurn(
    threadId: string,
    input: string | UserInput[],
    overrides: Omit<ClientRequestParams<"turn/start">, "threadId" | "input"> = {},
  ): AsyncGenerator<ServerEvent> {
    const queue: ServerEvent[] = [];
    let wake: (() => void) | null = null;
    let turnId: string | null = null;
    const belongs = (event: ServerEvent): boolean => {
      const params = event.params as { threadId?: string; turnId?: string; turn?: { id: string } };
      if (params.threadId !== threadId) return false;
      const id = params.turnId ?? params.turn?.id;
      return id === undefined || turnId === null || id === turnId;
    };
    const stop = this.onAny((event) => {
      if (!belongs(event)) return;
      queue.push(event);
      wake?.();
    });
    try {
      const items = typeof input === "string" ? [{ type: "text" as const, text: input }] : input;
      const started = await this.request("turn/start", { ...overrides, threadId, input: items });
      turnId = started.turn.id;
      for (;;) {
        while (queue.length > 0) {
          const event = queue.shift()!;
          if (!belongs(event)) continue;
          yield event;
          if (event.method === "turn/completed") return;
        }
        if (this.closedReason) throw new AppServerError(this.closedReason, -32000);
        await new Promise<void>((resolve) => {
          wake = resolve;
          this.closeWaiters.add(resolve);
        });
        this.closeWaiters.delete(wake!);
        wake = null;
      }
    } finally {
      stop();
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

  /** Closes the connection (a spawned server then exits). */
  async close(): Promise<void> {
    await this.transport.close();
  }

  private receive(message: Record<string, unknown>): void {
    if (typeof message.method === "string" && message.id !== undefined) {
      void this.answer(message.id, message.method, message.params);
      return;
    }
    if (typeof message.method === "string") {
      const event = { method: message.method, params: message.params } as ServerEvent;
      for (const handler of this.listeners.get(message.method) ?? []) handler(message.params as never);
      for (const handler of this.anyListeners) handler(event);
      return;
    }
    if (typeof message.id !== "number") return;
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    const error = message.error as { code: number; message: string; data?: unknown } | undefined;
    if (error) waiter.reject(new AppServerError(error.message, error.code, error.data));
    else waiter.resolve(message.result);
  }

  private async answer(id: unknown, method: string, params: unknown): Promise<void> {
    try {
      let decision: unknown;
      if (method === "item/commandExecution/requestApproval") decision = await this.commandApproval(params as never);
      else if (method === "item/fileChange/requestApproval") decision = await this.fileChangeApproval(params as never);
      else {
        this.transport.send({ id, error: { code: -32601, message: `this client does not handle ${method}` } });
        return;
      }
      this.transport.send({ id, result: { decision } });
    } catch (error) {
      this.transport.send({ id, error: { code: -32603, message: (error as Error).message } });
    }
  }
}
