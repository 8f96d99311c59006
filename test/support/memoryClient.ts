import { PassThrough } from "node:stream";
import pino from "pino";
import { ClientConnection, type ConnectionHost } from "../../src/server/connection.js";
import { Dispatcher, type HandlerTable } from "../../src/server/dispatcher.js";
import { RequestScheduler } from "../../src/server/requestScheduler.js";
import { ServerRequestBroker } from "../../src/server/serverRequests.js";
import { NewlineMessageReader } from "../../src/transport/lineReader.js";
import { NewlineMessageWriter } from "../../src/transport/lineWriter.js";
import { MessageLog } from "./messageLog.js";

/** A log sink that keeps lines in memory so tests can look at what was logged. */
export function memoryLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

/**
 * A connection wired through the real reader, writer, vscode-jsonrpc connection and dispatcher,
 * over in-memory streams, with a handler table chosen by the test.
 */
export class MemoryClient {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly connection: ClientConnection;
  private readonly log = new MessageLog(this.output);

  constructor(handlers: Partial<HandlerTable>, options: { maxPending?: number; host?: Partial<ConnectionHost> } = {}) {
    const logger = options.host?.logger ?? memoryLogger().logger;
    const host: ConnectionHost = {
      logger,
      dispatcher: new Dispatcher(handlers as HandlerTable, new RequestScheduler({ perConnection: options.maxPending }), logger),
      serverRequests: options.host?.serverRequests ?? new ServerRequestBroker(),
    };
    this.connection = new ClientConnection(host, new NewlineMessageReader(this.input), new NewlineMessageWriter(this.output));
    this.connection.listen();
  }

  get messages(): any[] {
    return this.log.messages;
  }

  send(message: object): void {
    this.input.write(JSON.stringify(message) + "\n");
  }

  waitFor(match: (message: any) => boolean, timeoutMs?: number): Promise<any> {
    return this.log.waitFor(match, timeoutMs);
  }

  response(id: unknown): Promise<any> {
    return this.log.response(id);
  }
}
