import { once } from "node:events";
import http from "node:http";
import type { Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { anthropicErrorBody, anthropicEvents } from "./mockAnthropicEvents.js";
import { chatEvents } from "./mockChatEvents.js";
import { geminiErrorBody, geminiEvents } from "./mockGeminiEvents.js";
import { chatTemplateViolation } from "./chatTemplateCheck.js";
import { modelListAnswer, type MockListedModel, type ModelListRequest } from "./mockModelList.js";
import { responsesEvents, type MockEvent } from "./mockEvents.js";
import { parseMockScript, type MockResponse, type MockResponseInput } from "./mockScript.js";

/** The wires the mock speaks. */
export type MockApi = "responses" | "chat" | "anthropic" | "gemini";

/** A request the mock received. */
export interface RecordedRequest {
  /** Which wire the request spoke: `responses`, `chat`, `anthropic` (Messages) or `gemini` (streamGenerateContent). */
  readonly api: MockApi;
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
  /**
   * Models `GET …/models` lists (default: none), in the format the request asks for: Anthropic's,
   * Gemini's (`/v1beta/models`) or OpenAI's.
   */
  readonly models?: readonly MockListedModel[];
  /** At most this many models per page of a model list (default: all on one page). */
  readonly modelsPageSize?: number;
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
  /** Base URL to configure as an OpenAI-wire provider's `base_url`, e.g. `http://127.0.0.1:40123/v1`. */
  readonly url: string;
  /**
   * The server's origin, e.g. `http://127.0.0.1:40123`: the `base_url` of an `anthropic` or
   * `gemini` wire provider, whose SDKs add their API's version themselves.
   */
  readonly origin: string;
  /** Every request received, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Every model list request (`GET …/models`), in order: not among {@link requests}. */
  readonly modelListRequests: readonly ModelListRequest[];
  /** Requests that found the script exhausted and got the default answer. */
  readonly unscripted: number;
  /** Appends responses to the script. */
  push(...responses: MockResponseInput[]): void;
  /** Resolves once every answer the mock started has ended or its client went away (an interrupt cut it); rejects after `timeoutMs`. */
  waitForClosedStreams(timeoutMs?: number): Promise<void>;
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Stops serving and cuts open streams. */
  close(): Promise<void>;
}

const FALLBACK: MockResponse = { items: [{ type: "message", text: "(mock) done" }] };

/**
 * A scripted model on 127.0.0.1: `POST /v1/responses` (Responses API SSE),
 * `POST /v1/chat/completions` (Chat Completions SSE), `POST /v1/messages` (Anthropic's Messages
 * SSE) and `POST /v1beta/models/<model>:streamGenerateContent` (Gemini's SSE) answer from one
 * ordered list of responses,
 * which can also be HTTP errors, slow streams, hangs and cut connections; `GET …/models` lists
 * `options.models` in OpenAI's, Anthropic's or Gemini's format. The real `openai`, `@anthropic-ai/sdk` and `@google/genai` clients talk to it unchanged.
 */
export async function startMockModel(options: MockModelOptions = {}): Promise<MockModel> {
  const script: MockResponse[] = parseMockScript(options.responses ?? []);
  const requests: RecordedRequest[] = [];
  const modelListRequests: ModelListRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  const streaming = new Set<http.ServerResponse>();
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
      const query = Object.fromEntries(new URL(req.url ?? "/", "http://mock").searchParams);
      const listRequest: ModelListRequest = { path, query, headers: req.headers };
      modelListRequests.push(listRequest);
      const answer = modelListAnswer(options.models ?? [], options.modelsPageSize, listRequest);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      return;
    }
    const api = apiOf(path);
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
      const error = response.errorBody ?? defaultErrorBody(api, response.httpStatus);
      res.writeHead(response.httpStatus, { "content-type": "application/json", ...response.headers }).end(JSON.stringify(error));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...response.headers });
    streaming.add(res);
    res.on("close", () => {
      streaming.delete(res);
      for (const wake of [...waiters]) wake();
    });
    const model = api === "gemini" ? decodeURIComponent(path.split("/models/")[1]?.split(":")[0] ?? "mock") : String(body.model ?? "mock");
    const events: Iterable<MockEvent> =
      api === "responses"
        ? responsesEvents(response, responseId)
        : api === "chat"
          ? chatEvents(response, responseId, model)
          : api === "anthropic"
            ? anthropicEvents(response, responseId, model)
            : geminiEvents(response, responseId, model);
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

  /** Resolves once `done()` holds, checked whenever a request arrives or an answer ends. */
  function waitUntil(done: () => boolean, failure: () => string, timeoutMs: number): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(failure()));
      }, timeoutMs);
      const check = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
    });
  }

  server.listen(options.port ?? 0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    requests,
    modelListRequests,
    get unscripted() {
      return unscripted;
    },
    push(...responses) {
      script.push(...parseMockScript(responses));
    },
    waitForClosedStreams(timeoutMs = 10_000) {
      return waitUntil(() => streaming.size === 0, () => `mock model: ${streaming.size} answers still streaming after ${timeoutMs} ms`, timeoutMs);
    },
    waitForRequests(count, timeoutMs = 10_000) {
      return waitUntil(() => requests.length >= count, () => `mock model: ${requests.length} of ${count} requests after ${timeoutMs} ms`, timeoutMs);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The wire a model request's path speaks, or null for no route. */
function apiOf(path: string): MockApi | null {
  if (path.endsWith("/responses")) return "responses";
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/v1/messages")) return "anthropic";
  if (/\/models\/[^/]+:streamGenerateContent$/.test(path)) return "gemini";
  return null;
}

/** An error answer's body in the shape the wire's provider sends. */
function defaultErrorBody(api: MockApi, status: number): unknown {
  if (api === "anthropic") return anthropicErrorBody(status, `mock error ${status}`);
  if (api === "gemini") return geminiErrorBody(status, `mock error ${status}`);
  return { error: { message: `mock error ${status}`, type: "server_error" } };
}
