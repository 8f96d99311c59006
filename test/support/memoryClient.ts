import { PassThrough } from "node:stream";
import pino from "pino";
import { ClientConnection, type ConnectionHost } from "../../src/server/connection.js";
import { Dispatcher, type HandlerTable } from "../../src/server/dispatcher.js";
import { RequestScheduler } from "../../src/server/requestScheduler.js";
import { ServerRequestBroker } from "../../src/server/serverRequests.js";
import { NewlineMessageReader } from "../../src/transport/lineReader.js";
import { NewlineMessageWriter } from "../../src/transport/lineWriter.js";
import { WAIT_MS } from "./serverProcess.js";

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
  readonly messages: any[] = [];
  readonly connection: ClientConnection;
  private waiters: Array<{ match: (m: any) => boolean; resolve: (m: any) => void }> = [];
  private buffer = "";

  constructor(handlers: Partial<HandlerTable>, options: { maxPending?: number; host?: Partial<ConnectionHost> } = {}) {
    const logger = options.host?.logger ?? memoryLogger().logger;
    const host: ConnectionHost = {
      logger,
      dispatcher: new Dispatcher(handlers as HandlerTable, new RequestScheduler(options.maxPending), logger),
      serverRequests: options.host?.serverRequests ?? new ServerRequestBroker(),
    };
    this.connection = new ClientConnection(host, new NewlineMessageReader(this.input), new NewlineMessageWriter(this.output));
    this.output.setEncoding("utf8");
    this.output.on("data", (chunk: string) => {
      this.buffer += chunk;
      const lines = this.buffer.split("\n");
      this.buffer = lines.pop()!;
      for (const line of lines) this.onMessage(JSON.parse(line));
    });
    this.connection.listen();
  }

  send(message: object): void {
    this.input.write(JSON.stringify(message) + "\n");
  }

  waitFor(match: (message: any) => boolean, timeoutMs = WAIT_MS): Promise<any> {
    const found = this.messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out waiting for a message")), timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  response(id: unknown): Promise<any> {
    return this.waitFor((m) => m.id === id && !("method" in m));
  }

  private onMessage(message: any): void {
    this.messages.push(message);
    for (const waiter of this.waiters.filter((w) => w.match(message))) {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      waiter.resolve(message);
    }
  }
}
