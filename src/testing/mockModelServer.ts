import { once } from "node:events";
import http from "node:http";
import type { Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { chatEvents } from "./mockChatEvents.js";
import { chatTemplateViolation } from "./chatTemplateCheck.js";
import { responsesEvents, type MockEvent } from "./mockEvents.js";
import { parseMockScript, type MockResponse, type MockResponseInput } from "./mockScript.js";

/** A request the mock received. */
export interface RecordedRequest {
  /** `responses` or `chat`. */
  readonly api: "responses" | "chat";
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/** Options of {@link startMockModel}. */
export interface MockModelOptions {
  /** The scripted responses, served one per model request in order. */
  readonly responses?: readonly MockResponseInput[];
  /** Port to listen on (default: any free port). */
  readonly port?: number;
  /** Model ids `GET /v1/models` lists (default: none). */
  readonly models?: readonly string[];
  /**
   * Answer a chat request whose messages a strict chat template refuses (roles out of order, a
   * second system message, an unanswered tool call) with vLLM's 400, without using a response.
   */
  readonly strictChatTemplate?: boolean;
  /** Called after each request is recorded (before it is answered). */
  readonly onRequest?: (request: RecordedRequest, served: number) => void;
}

/** A running mock model server. */
export interface MockModel {
  /** Base URL to configure as a provider's `base_url`, e.g. `http://127.0.0.1:40123/v1`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Requests that found the script exhausted and got the default answer. */
  readonly unscripted: number;
  /** Appends responses to the script. */
  push(...responses: MockResponseInput[]): void;
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Stops serving and cuts open streams. */
  close(): Promise<void>;
}

const FALLBACK: MockResponse = { items: [{ type: "message", text: "(mock) done" }] };

/**
 * A scripted model on 127.0.0.1: `POST /v1/responses` (Responses API SSE) and
 * `POST /v1/chat/completions` (Chat Completions SSE) answer from one ordered list of responses,
 * which can also be HTTP errors, slow streams, hangs and cut connections; `GET /v1/models` lists
 * `options.models`. The real `openai` client talks to it unchanged.
 */
export async function startMockModel(options: MockModelOptions = {}): Promise<MockModel> {
  const script: MockResponse[] = parseMockScript(options.responses ?? []);
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  let unscripted = 0;
  let served = 0;

  const server = http.createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0]!;
    if (req.method === "GET" && path.endsWith("/models")) {
      const data = (options.models ?? []).map((id) => ({ id, object: "model", created: 0, owned_by: "mock" }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data }));
      return;
    }
    const api = path.endsWith("/responses") ? "responses" : path.endsWith("/chat/completions") ? "chat" : null;
    if (req.method !== "POST" || !api) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
    const recorded: RecordedRequest = { api, path, headers: req.headers, body };
    requests.push(recorded);
    options.onRequest?.(recorded, requests.length);
    for (const wake of [...waiters]) wake();
    const refused = api === "chat" && options.strictChatTemplate ? chatTemplateViolation(body.messages) : null;
    if (refused) {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ object: "error", message: refused, type: "BadRequestError", param: null, code: 400 }));
      return;
    }
    const response = script.shift() ?? (unscripted++, FALLBACK);
    const responseId = `resp_${++served}`;
    if (response.startDelayMs) await sleep(response.startDelayMs);
    if (response.httpStatus) {
      const error = response.errorBody ?? { error: { message: `mock error ${response.httpStatus}`, type: "server_error" } };
      res.writeHead(response.httpStatus, { "content-type": "application/json", ...response.headers }).end(JSON.stringify(error));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...response.headers });
    const events: Iterable<MockEvent> =
      api === "responses" ? responsesEvents(response, responseId) : chatEvents(response, responseId, String(body.model ?? "mock"));
    let sent = 0;
    let flushed: Promise<unknown> = Promise.resolve();
    for (const event of events) {
      if (response.disconnectAfter !== undefined && sent >= response.disconnectAfter) {
        // Let what was sent reach the client, then cut the connection without ending the response.
        await flushed;
        res.socket?.destroy();
        return;
      }
      if (response.stallAfter !== undefined && sent >= response.stallAfter) return;
      const delay = event.isDelta ? (response.deltaDelayMs ?? response.delayMs) : response.delayMs;
      if (delay) await sleep(delay);
      if (res.destroyed) return;
      const type = typeof event.data.type === "string" ? `event: ${event.data.type}\n` : "";
      flushed = new Promise((resolve) => res.write(`${type}data: ${JSON.stringify(event.data)}\n\n`, resolve));
      sent++;
    }
    if (response.hang) return;
    if (api === "chat") res.write("data: [DONE]\n\n");
    res.end();
  }

  server.listen(options.port ?? 0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get unscripted() {
      return unscripted;
    },
    push(...responses) {
      script.push(...parseMockScript(responses));
    },
    waitForRequests(count, timeoutMs = 10_000) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`mock model: ${requests.length} of ${count} requests after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = (): void => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
