import { createMessageConnection, Message, type MessageConnection, type RequestMessage, type ResponseMessage } from "vscode-jsonrpc/node";
import type { z } from "zod";
import { rpcError } from "../protocol/errors.js";
import { ErrorCode, type RequestId } from "../protocol/jsonrpc.js";
import {
  serverNotificationSpec,
  serverRequests,
  type ServerRequestMethod,
  type ServerRequestParams,
  type ServerRequestResult,
} from "../protocol/methods.js";
import type { Logger } from "../runtime/logger.js";
import type { InvalidMessage } from "../transport/envelope.js";
import type { NewlineMessageReader } from "../transport/lineReader.js";
import type { NewlineMessageWriter } from "../transport/lineWriter.js";
import type { ServerRequestBroker } from "./serverRequests.js";
import { LogRedactor } from "./logRedactor.js";
import { knownSecrets, type KnownSecrets } from "./secretRedaction.js";
import type { SessionAudit, SessionLog } from "./sessionAudit.js";

/** A server notification built once, as the JSON-RPC message it is, and fanned out to every subscribed connection. */
export interface OutgoingNotification {
  readonly jsonrpc: "2.0";
  readonly method: string;
  readonly params: unknown;
  readonly emittedAtMs: number;
}

/** What the client declared in `initialize`. */
export interface ClientSession {
  readonly clientName: string;
  readonly clientVersion: string;
  readonly experimentalApi: boolean;
  readonly optOutNotificationMethods: ReadonlySet<string>;
}

/** Serves a connection's requests (the server's Dispatcher; named by shape so the two modules do not import each other). */
export interface RequestDispatch {
  dispatch(connection: ClientConnection, method: string, params: unknown, requestId: RequestId): Promise<unknown>;
}

/** Services a connection needs from the server that owns it. */
export interface ConnectionHost {
  readonly logger: Logger;
  readonly dispatcher: RequestDispatch;
  readonly serverRequests: ServerRequestBroker<ClientConnection>;
  /** Where every message goes when the audit log is on. */
  readonly audit?: SessionAudit | undefined;
  /** The secret values to mask wherever messages are logged, as they stand now. */
  readonly secrets?: (() => KnownSecrets) | undefined;
}

let nextConnectionNumber = 0;
// A host that names no secrets still gets credential-shaped text masked.
const NO_SECRETS = knownSecrets([]);

/**
 * One client: a vscode-jsonrpc connection over our newline reader/writer, plus the state the
 * protocol keeps per connection (initialized or not, opted-out notifications) and the requests
 * read but not yet answered, so shutdown can wait for them.
 */
export class ClientConnection {
  /** Distinguishes connections in the log. */
  readonly number = nextConnectionNumber++;
  private readonly auditLog: SessionLog | undefined;
  /** Settles once the audit log's last lines are written (after the output closed). */
  private auditClosed: Promise<void> | undefined;
  private readonly logRedactor: LogRedactor;
  private session: ClientSession | undefined;
  private readonly rpc: MessageConnection;
  private readonly logger: Logger;
  private readonly unanswered = new Set<RequestId>();
  private readonly afterResponse = new Map<RequestId, () => void>();
  private idleWaiters: Array<() => void> = [];
  private inputClosedListeners: Array<() => void> = [];
  private outputClosedListeners: Array<() => void> = [];
  private inputClosed = false;
  private outputClosed = false;
  private toldSlowReader = false;
  private currentRequestId: RequestId | undefined;

  constructor(
    private readonly host: ConnectionHost,
    private readonly reader: NewlineMessageReader,
    private readonly writer: NewlineMessageWriter,
  ) {
    this.logger = host.logger.child({ connection: this.number });
    this.auditLog = host.audit?.open(this.number);
    this.logRedactor = new LogRedactor(host.secrets ?? (() => NO_SECRETS));
    reader.setInterceptor((message) => this.intercept(message));
    reader.onInvalidMessage((invalid) => this.reject(invalid));
    reader.onIgnoredMessage((reason) => this.logger.warn(`ignored input: ${reason}`));
    reader.onClose(() => this.handleInputClosed());
    reader.onError((error) => {
      this.logger.warn({ err: error }, "input error");
      this.handleInputClosed();
    });
    writer.onDidWrite((message) => this.onDidWrite(message));
    // A client that does not read its output must not make the server queue it without bound: its
    // requests are not read until the output drains (as Codex's bounded outgoing queue does).
    writer.onBackedUp((backedUp) => (backedUp ? reader.pause() : reader.resume()));
    writer.onClose(() => this.handleOutputClosed());
    writer.onError(([error]) => {
      this.logger.warn({ err: error }, "output error");
      this.handleOutputClosed();
    });
    this.rpc = createMessageConnection(reader, writer, this.rpcLogger(), {
      messageStrategy: { handleMessage: (message, next) => this.route(message, next) },
    });
    this.rpc.onRequest((method, params) => this.host.dispatcher.dispatch(this, method, params, this.currentRequestId!));
    this.rpc.onNotification((method) => this.logger.debug({ method }, "client notification"));
  }

  /** Starts reading messages. */
  listen(): void {
    this.rpc.listen();
  }

  /** The initialize-time session, or undefined before `initialize`. */
  get client(): ClientSession | undefined {
    return this.session;
  }

  /** Records the outcome of `initialize`; the connection accepts other requests from now on. */
  markInitialized(session: ClientSession): void {
    this.session = session;
  }

  /** Runs `fn` right after the response to request `id` has been written. */
  whenResponded(id: RequestId, fn: () => void): void {
    this.afterResponse.set(id, fn);
  }

  /**
   * Sends a notification unless this client opted out of its method, or the method belongs to
   * Codex's experimental API and the client did not opt in; resolves under backpressure.
   */
  notify(notification: OutgoingNotification): Promise<void> {
    if (this.outputClosed || this.session?.optOutNotificationMethods.has(notification.method)) return Promise.resolve();
    // As Codex, experimental notifications (the registry marks them) go only to clients that opted in.
    if (serverNotificationSpec(notification.method)?.experimental && !this.session?.experimentalApi) return Promise.resolve();
    return this.writer.write(notification as Message);
  }

  /** Undefined while this client reads its output; a promise that resolves once it has caught up when too much is queued for it. */
  caughtUp(): Promise<void> | undefined {
    if (this.outputClosed) return undefined;
    const caughtUp = this.writer.caughtUp();
    if (caughtUp && !this.toldSlowReader) {
      // Once per connection: it explains turns that stream slower than their model.
      this.toldSlowReader = true;
      this.logger.info("the client reads its output slower than it is written: streaming turns wait for it to catch up");
    }
    return caughtUp;
  }

  /** Sends a server → client request and resolves with the client's validated answer. */
  async request<M extends ServerRequestMethod>(
    method: M,
    params: ServerRequestParams<M>,
  ): Promise<ServerRequestResult<M>> {
    const { key, ids, response } = this.host.serverRequests.open([this], method);
    this.sendRequest(ids.get(this)!, method, params);
    try {
      return validateAnswer(method, await response);
    } finally {
      this.host.serverRequests.release(key);
    }
  }

  /** Writes a server → client request under the id the broker allocated on this connection; withdrawn if this client is gone. */
  sendRequest<M extends ServerRequestMethod>(id: number, method: M, params: ServerRequestParams<M>): void {
    if (this.inputClosed || this.outputClosed) this.host.serverRequests.dropOwner(this, "connection closed");
    else void this.writer.write({ jsonrpc: "2.0", id, method, params } as RequestMessage);
  }

  /** Registers a listener for the end of the client's input (EOF or a read error). */
  onInputClosed(listener: () => void): void {
    if (this.inputClosed) listener();
    else this.inputClosedListeners.push(listener);
  }

  /** Registers a listener for the end of the output: nothing more can reach this client. */
  onOutputClosed(listener: () => void): void {
    if (this.outputClosed) listener();
    else this.outputClosedListeners.push(listener);
  }

  /** Stops reading further messages; those already read are still served. */
  stopReading(): void {
    this.reader.stop();
  }

  /** Resolves once every request read so far has been answered. */
  idle(): Promise<void> {
    if (this.unanswered.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Flushes what was written and closes the output. */
  async close(): Promise<void> {
    if (!this.outputClosed) {
      await this.writer.flush();
      this.rpc.dispose();
      this.writer.end();
      this.handleOutputClosed();
    }
    // The process exits once connections are closed: the audit log's writes must be done by then.
    await this.auditClosed;
  }

  /**
   * Settles client responses at once (the first answer from a connection the request was sent to
   * wins) and refuses duplicate request ids.
   */
  private intercept(message: Message): boolean {
    if (Message.isResponse(message)) {
      // Answers to server requests never reach `route`: logged here, or the audit log would lack the client's decisions.
      this.trace("recv", message);
      if (!this.host.serverRequests.settle(this, message as ResponseMessage)) {
        this.logger.warn(
          { id: message.id },
          `ignored a response to no pending server request: connection ${this.number} was sent no request with id ${JSON.stringify(message.id)} that still waits for an answer`,
        );
      }
      return true;
    }
    if (!Message.isRequest(message)) return false;
    const id = message.id!;
    if (this.unanswered.has(id)) {
      this.reject({
        id,
        code: ErrorCode.InvalidRequest,
        message: `Invalid request: request id ${JSON.stringify(id)} is already in use by a request not yet answered`,
      });
      return true;
    }
    this.unanswered.add(id);
    return false;
  }

  private reject(invalid: InvalidMessage): void {
    this.logger.warn({ code: invalid.code, id: invalid.id }, `rejected input: ${invalid.message}`);
    const response = { jsonrpc: "2.0", id: invalid.id, error: { code: invalid.code, message: invalid.message } };
    void this.writer.write(response as Message);
  }

  private route(message: Message, next: (message: Message) => void | Promise<void>): void | Promise<void> {
    this.trace("recv", message);
    if (!Message.isRequest(message)) return next(message);
    // vscode-jsonrpc hands request handlers no id; it dispatches one message at a time and calls
    // the handler synchronously inside `next`, so the id set here is the one that call serves.
    this.currentRequestId = message.id ?? undefined;
    try {
      return next(message);
    } finally {
      this.currentRequestId = undefined;
    }
  }

  private onDidWrite(message: Message): void {
    this.trace("send", message);
    if (!Message.isResponse(message) || message.id === null) return;
    const continuation = this.afterResponse.get(message.id);
    if (continuation) {
      this.afterResponse.delete(message.id);
      continuation();
    }
    if (this.unanswered.delete(message.id) && this.unanswered.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** Logs traffic: method and id at `debug`, whole messages (possibly megabytes) only at `trace`. */
  private trace(direction: "recv" | "send", message: Message): void {
    const traced = this.logger.isLevelEnabled("trace");
    if (this.auditLog || traced) {
      // Redacted once for both logs, in message order: a stream's chunks are redacted in sequence.
      const safe = this.logRedactor.redact(message);
      this.auditLog?.record(direction === "recv" ? "in" : "out", safe);
      if (traced) this.logger.trace({ message: safe }, direction);
    }
    if (!traced && this.logger.isLevelEnabled("debug")) {
      const { id, method } = message as { id?: unknown; method?: unknown };
      const error = (message as { error?: { code: number } }).error;
      this.logger.debug({ id, method, errorCode: error?.code }, direction);
    }
  }

  private handleInputClosed(): void {
    if (this.inputClosed) return;
    this.inputClosed = true;
    // Nobody can answer server requests any more: fail them so their turns can move on.
    this.host.serverRequests.dropOwner(this, "connection closed");
    for (const listener of this.inputClosedListeners.splice(0)) listener();
  }

  private handleOutputClosed(): void {
    if (this.outputClosed) return;
    this.outputClosed = true;
    this.host.serverRequests.dropOwner(this, "connection closed");
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    for (const listener of this.outputClosedListeners.splice(0)) listener();
    this.auditClosed = this.auditLog?.close();
  }

  private rpcLogger() {
    return {
      error: (message: string) => this.logger.error(message),
      warn: (message: string) => this.logger.warn(message),
      info: (message: string) => this.logger.debug(message),
      log: (message: string) => this.logger.debug(message),
    };
  }
}

/** A client's answer to server request `method`, checked against its schema. */
export function validateAnswer<M extends ServerRequestMethod>(method: M, result: unknown): ServerRequestResult<M> {
  const schema: z.ZodType = serverRequests[method].result;
  const parsed = schema.safeParse(result);
  if (!parsed.success) {
    throw rpcError(ErrorCode.InvalidParams, `invalid response to ${method}: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data as ServerRequestResult<M>;
}
