/** The client's option, handler and event types. */
import type {
  ClientRequestParams,
  ServerNotification,
  ServerNotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
} from "../protocol/types.js";
import type {
  Readable,
  Writable,
} from "node:stream";
import type {
  StderrTarget,
} from "./clientTransport.js";

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
  readonly capabilities?: ClientRequestParams<"initialize">["capabilities"];
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
  /** The whole command (default `node <this package>/dist/cli.cjs app-server`). */
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
