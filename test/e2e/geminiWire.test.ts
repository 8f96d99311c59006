import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { geminiEvents } from "../../src/testing/mockGeminiEvents.js";
import { closedPort } from "../support/ports.js";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, runTurn, servers, startThread, tempDir, type ProviderOptions } from "../support/turnHarness.js";

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const KEY = "gemini-test-key";

/** The mock provider speaking Gemini's wire, its key in GEMINI_API_KEY. */
const GEMINI: ProviderOptions = { wire: "gemini", model: "gemini-2.5-flash", envKey: "GEMINI_API_KEY" };
const ENV = { GEMINI_API_KEY: KEY };

function completedItems(server: ServerProcess, type: string): any[] {
  return server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === type).map((m) => m.params.item);
}

/** The contents of the `n`th request the mock got. */
function contents(mock: { requests: readonly { body: Record<string, unknown> }[] }, n: number): any[] {
  return mock.requests[n]!.body.contents as any[];
}

/** Google's error body with the given details. */
function googleError(code: number, message: string, status: string, details: object[] = []): object {
  return { error: { code, message, status, details } };
}

/** A server whose provider `gem` speaks Gemini at `baseUrl` (no retries; `extra` entries added to its table), initialized. */
async function serverAt(baseUrl: string, extra: string[] = []): Promise<ServerProcess> {
  const table = [`name="gem"`, `base_url="${baseUrl}"`, `env_key="GEMINI_API_KEY"`, `wire_api="gemini"`, "request_max_retries=0", "stream_max_retries=0", ...extra];
  const server = ServerProcess.start({
    args: ["app-server", "-c", `model_provider="gem"`, "-c", `model_providers.gem={${table.join(",")}}`, "-c", `model="gemini-2.5-flash"`],
    env: { OPENAI_API_KEY: "", ...ENV },
  });
  servers.push(server);
  await server.initialize();
  return server;
}

/** The endpoints of the current test, closed after it. */
const endpoints: http.Server[] = [];
afterEach(() => {
  for (const endpoint of endpoints.splice(0)) {
    endpoint.closeAllConnections();
    endpoint.close();
  }
});

/**
 * A Gemini endpoint on 127.0.0.1 answering every request with these chunks as SSE, then ending the
 * response (or holding it open); `closed` resolves when a client closed a response it held.
 */
async function geminiEndpoint(chunks: readonly object[], options: { hold?: boolean } = {}): Promise<{ url: string; urls: string[]; closed: Promise<void> }> {
  const urls: string[] = [];
  let onClose!: () => void;
  const closed = new Promise<void>((resolve) => (onClose = resolve));
  const endpoint = http.createServer((req, res) => {
    urls.push(req.url ?? "");
    res.on("close", onClose);
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    if (!options.hold) res.end();
  });
  endpoint.listen(0, "127.0.0.1");
  await once(endpoint, "listening");
  endpoints.push(endpoint);
  return { url: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`, urls, closed };
}

describe("the Gemini wire (generateContentStream through @google/genai)", () => {
  it("streams text as it comes, with the key, the system instruction and the user's contents", async () => {
    const { server, mock } = await launch([{ items: [{ type: "message", deltas: ["Hel", "lo ", "Gemini."] }] }], { ...GEMINI, env: ENV });
    const threadId = await startThread(server, { developerInstructions: "Be careful." });
    const { completed } = await runTurn(server, threadId, "Hi.");
    expect(completed.params.turn.status).toBe("completed");
    const deltas = server.messages.filter((m) => m.method === "item/agentMessage/delta").map((m) => m.params.delta);
    expect(deltas).toEqual(["Hel", "lo ", "Gemini."]);
    expect(completedItems(server, "agentMessage")).toEqual([expect.objectContaining({ text: "Hello Gemini." })]);
    const request = mock.requests[0]!;
    expect(request).toMatchObject({ api: "gemini", path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent" });
    expect(request.headers["x-goog-api-key"]).toBe(KEY);
    const system = (request.body.systemInstruction as any).parts as any[];
    expect(system).toEqual([{ text: expect.stringMatching(/^You are a coding agent[\s\S]*\n\nBe careful\.$/) }]);
    // The environment context and the prompt: one user content.
    expect(contents(mock, 0)).toEqual([{ role: "user", parts: [{ text: expect.stringContaining("<environment_context>") }, { text: "Hi." }] }]);
    // No reasoning settings: no thinking config.
    expect(request.body.generationConfig ?? {}).toEqual({});
  });

  it("runs a command the model calls, and sends the call back with its name, id and signature, then its result", async () => {
    const { server, mock } = await launch(
      [
        { items: [{ type: "reasoning", encryptedContent: "sig-1" }, { type: "message", text: "Checking." }, { type: "exec", cmd: "echo hi-from-gemini" }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
      { ...GEMINI, env: ENV, sandbox: "danger-full-access" },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Run it.");
    expect(completed.params.turn.status).toBe("completed");
    // Gemini 2.5 sends calls without ids: the wire names them after the response.
    expect(completedItems(server, "commandExecution")).toEqual([
      expect.objectContaining({ id: "call_resp_1_0", status: "completed", exitCode: 0, aggregatedOutput: "hi-from-gemini\n" }),
    ]);
    const tools = (mock.requests[0]!.body.tools as any[])[0].functionDeclarations as any[];
    expect(tools.find((tool) => tool.name === "exec_command").parametersJsonSchema).toMatchObject({ type: "object", properties: { cmd: { type: "string" } } });
    const [model, results] = contents(mock, 1).slice(-2);
    expect(model).toEqual({
      role: "model",
      parts: [
        { text: "Checking." },
        { functionCall: { id: "call_resp_1_0", name: "exec_command", args: { cmd: "echo hi-from-gemini", yield_time_ms: 500 } }, thoughtSignature: "sig-1" },
      ],
    });
    expect(results).toEqual({
      role: "user",
      parts: [{ functionResponse: { id: "call_resp_1_0", name: "exec_command", response: { output: expect.stringContaining("hi-from-gemini") } } }],
    });
  });

  it("runs parallel calls and sends them back as one model turn, only the first signed, their results as one user turn", async () => {
    const { server, mock } = await launch(
      [
        {
          items: [
            { type: "reasoning", encryptedContent: "sig-p" },
            { type: "exec", cmd: "echo one", callId: "fc-a" },
            { type: "exec", cmd: "echo two", callId: "fc-b" },
          ],
        },
        { items: [{ type: "exec", cmd: "echo three", callId: "fc-c" }] },
        { items: [{ type: "message", text: "All ran." }] },
      ],
      { ...GEMINI, env: ENV, sandbox: "danger-full-access" },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Run them.");
    expect(completed.params.turn.status).toBe("completed");
    expect(completedItems(server, "commandExecution").map((item) => [item.id, item.aggregatedOutput])).toEqual([
      ["fc-a", "one\n"],
      ["fc-b", "two\n"],
      ["fc-c", "three\n"],
    ]);
    const history = contents(mock, 2).slice(-4);
    expect(history.map((content) => content.role)).toEqual(["model", "user", "model", "user"]);
    expect(history[0].parts.map((part: any) => [part.functionCall.id, part.thoughtSignature])).toEqual([
      ["fc-a", "sig-p"],
      ["fc-b", undefined],
    ]);
    expect(history[1].parts.map((part: any) => part.functionResponse.id)).toEqual(["fc-a", "fc-b"]);
    // The next response's call is a step of its own.
    expect(history[2].parts.map((part: any) => part.functionCall.id)).toEqual(["fc-c"]);
    expect(history[3].parts.map((part: any) => part.functionResponse.id)).toEqual(["fc-c"]);
  });

  it("offers apply_patch as a function with one string input, and applies what Gemini sends", async () => {
    const workspace = tempDir("aas-gemini-ws-");
    const patch = "*** Begin Patch\n*** Add File: hello.txt\n+hi from gemini\n*** End Patch\n";
    const { server, mock } = await launch([{ items: [{ type: "apply_patch", patch, callId: "fc-p" }] }, { items: [{ type: "message", text: "Added." }] }], {
      ...GEMINI,
      env: ENV,
      sandbox: "workspace-write",
    });
    const threadId = await startThread(server, { cwd: workspace });
    const { completed } = await runTurn(server, threadId, "Add it.");
    expect(completed.params.turn.status).toBe("completed");
    expect(readFileSync(path.join(workspace, "hello.txt"), "utf8")).toBe("hi from gemini\n");
    const tools = (mock.requests[0]!.body.tools as any[])[0].functionDeclarations as any[];
    expect(tools.find((tool) => tool.name === "apply_patch").parametersJsonSchema).toMatchObject({ properties: { input: { type: "string" } }, required: ["input"] });
    expect(completedItems(server, "fileChange")).toEqual([expect.objectContaining({ id: "fc-p", status: "completed" })]);
    const [model, results] = contents(mock, 1).slice(-2);
    expect(model.parts).toEqual([{ functionCall: { id: "fc-p", name: "apply_patch", args: { input: patch } } }]);
    expect(results.parts).toEqual([{ functionResponse: { id: "fc-p", name: "apply_patch", response: { output: expect.any(String) } } }]);
  });

  it("streams thought summaries as a reasoning item, and sends each signature back on the part it came with", async () => {
    const { server, mock } = await launch(
      [
        { items: [{ type: "reasoning", summary: ["Thinking ", "it over."], encryptedContent: "sig-t" }, { type: "message", text: "Answer." }] },
        { items: [{ type: "reasoning", summary: ["Nothing to add."], encryptedContent: "sig-r" }] },
        { items: [{ type: "message", text: "Fine." }] },
      ],
      { ...GEMINI, env: ENV, args: ["-c", `model_reasoning_effort="high"`] },
    );
    const threadId = await startThread(server);
    const first = await runTurn(server, threadId, "Think.");
    expect(first.completed.params.turn.status).toBe("completed");
    expect(mock.requests[0]!.body.generationConfig).toEqual({ thinkingConfig: { includeThoughts: true, thinkingBudget: 24576 } });
    expect(completedItems(server, "reasoning")).toEqual([expect.objectContaining({ id: "rs_resp_1_0", summary: ["Thinking it over."] })]);
    const summary = server.messages.filter((m) => m.method?.startsWith("item/reasoning/")).map((m) => [m.method, m.params.delta ?? m.params.summaryIndex]);
    expect(summary).toEqual([
      ["item/reasoning/summaryPartAdded", 0],
      ["item/reasoning/summaryTextDelta", "Thinking "],
      ["item/reasoning/summaryTextDelta", "it over."],
    ]);
    // The thoughts end where the answer begins.
    const order = server.messages.filter((m) => m.method === "item/started" || m.method === "item/completed").map((m) => `${m.method}:${m.params.item.type}`);
    expect(order.slice(-4)).toEqual(["item/started:reasoning", "item/completed:reasoning", "item/started:agentMessage", "item/completed:agentMessage"]);

    // On Gemini 3 the effort is a thinking level; a signature that ended a stream of thoughts alone stays with them.
    await runTurn(server, threadId, "Anything else?", { model: "gemini-3-pro-preview", effort: "medium" });
    expect(mock.requests[1]!.path).toBe("/v1beta/models/gemini-3-pro-preview:streamGenerateContent");
    expect(mock.requests[1]!.body.generationConfig).toEqual({ thinkingConfig: { includeThoughts: true, thinkingLevel: "HIGH" } });
    // The first answer's signature came on the stream's last, empty part: it goes back on the answer's text.
    expect(contents(mock, 1).at(-2)).toEqual({ role: "model", parts: [{ text: "Answer.", thoughtSignature: "sig-t" }] });

    await runTurn(server, threadId, "Thanks.");
    expect(contents(mock, 2).slice(-4)).toEqual([
      { role: "model", parts: [{ text: "Answer.", thoughtSignature: "sig-t" }] },
      { role: "user", parts: [{ text: "Anything else?" }] },
      { role: "model", parts: [{ text: "Nothing to add.", thought: true, thoughtSignature: "sig-r" }] },
      { role: "user", parts: [{ text: "Thanks." }] },
    ]);
  });

  it("sends images inline, the one a tool returned after the tool's result", async () => {
    const workspace = tempDir("aas-gemini-img-");
    writeFileSync(path.join(workspace, "dot.png"), Buffer.from(PNG, "base64"));
    const { server, mock } = await launch(
      [{ items: [{ type: "function_call", name: "view_image", arguments: { path: "dot.png" }, callId: "fc-v" }] }, { items: [{ type: "message", text: "A dot." }] }],
      { ...GEMINI, env: ENV },
    );
    const threadId = await startThread(server, { cwd: workspace });
    const { completed } = await runTurn(server, threadId, "Look.", {
      input: [
        { type: "text", text: "Look." },
        { type: "localImage", path: path.join(workspace, "dot.png") },
      ],
    });
    expect(completed.params.turn.status).toBe("completed");
    const image = { inlineData: { mimeType: "image/png", data: PNG } };
    const prompt = contents(mock, 0).at(-1).parts as any[];
    expect(prompt).toContainEqual({ text: "Look." });
    expect(prompt).toContainEqual(image);
    expect(contents(mock, 1).at(-1)).toEqual({
      role: "user",
      parts: [{ functionResponse: { id: "fc-v", name: "view_image", response: { output: expect.any(String) } } }, image],
    });
  });

  it("asks for JSON in the turn's output schema, for that turn only", async () => {
    const { server, mock } = await launch([{ items: [{ type: "message", text: '{"ok":true}' }] }, { items: [{ type: "message", text: "Plain." }] }], {
      ...GEMINI,
      env: ENV,
    });
    const threadId = await startThread(server);
    const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };
    await runTurn(server, threadId, "Answer in JSON.", { outputSchema: schema });
    await runTurn(server, threadId, "Now plainly.");
    expect(mock.requests[0]!.body.generationConfig).toEqual({ responseMimeType: "application/json", responseJsonSchema: schema });
    expect(mock.requests[1]!.body.generationConfig ?? {}).toEqual({});
  });

  it("reports Gemini's usage, cached and thought tokens included", async () => {
    const { server } = await launch(
      [{ usage: { input_tokens: 1000, cached_tokens: 800, output_tokens: 50, reasoning_tokens: 30, total_tokens: 1050 }, items: [{ type: "message", text: "Counted." }] }],
      { ...GEMINI, env: ENV },
    );
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Count.");
    const usage = server.messages.find((m) => m.method === "thread/tokenUsage/updated")!.params.tokenUsage.last;
    expect(usage).toMatchObject({ inputTokens: 1000, cachedInputTokens: 800, outputTokens: 50, reasoningOutputTokens: 30, totalTokens: 1050 });
  });

  it("fails at once on a refused key, naming its variable, whether Google answers 401 or 400 API_KEY_INVALID", async () => {
    const invalid = googleError(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT", [
      { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" },
    ]);
    const { server, mock } = await launch([{ httpStatus: 401 }, { httpStatus: 400, errorBody: invalid }], { ...GEMINI, env: ENV, requestRetries: 3, streamRetries: 3 });
    const threadId = await startThread(server);
    const first = await runTurn(server, threadId, "Hi.");
    expect(first.completed.params.turn).toMatchObject({ status: "failed", error: { codexErrorInfo: "unauthorized" } });
    expect(first.completed.params.turn.error.message).toMatch(/^mock error 401\b.*Check the API key in `GEMINI_API_KEY`\.$/);
    expect(mock.requests).toHaveLength(1);
    const second = await runTurn(server, threadId, "Again.");
    expect(second.completed.params.turn.error).toMatchObject({
      codexErrorInfo: "unauthorized",
      message: expect.stringMatching(/^API key not valid\. Please pass a valid API key\..*`GEMINI_API_KEY`/),
    });
    expect(mock.requests).toHaveLength(2);
  });

  it("retries a 429 after the delay Google's RetryInfo asks for", async () => {
    const arrivals: number[] = [];
    const quota = googleError(429, "You exceeded your current quota.", "RESOURCE_EXHAUSTED", [
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "0.8s" },
    ]);
    const { server, mock } = await launch([{ httpStatus: 429, errorBody: quota }, { items: [{ type: "message", text: "Later." }] }], {
      ...GEMINI,
      env: ENV,
      requestRetries: 1,
      mockOptions: { onRequest: () => arrivals.push(Date.now()) },
    });
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi.");
    expect(completed.params.turn.status).toBe("completed");
    expect(mock.requests).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(750);
    expect(completedItems(server, "agentMessage")).toEqual([expect.objectContaining({ text: "Later." })]);
  });

  it("retries a stream that fails midway with a Reconnecting notice", async () => {
    const { server, mock } = await launch(
      [{ items: [{ type: "message", text: "Partial" }], failed: { message: "backend hiccup" } }, { items: [{ type: "message", text: "Whole." }] }],
      { ...GEMINI, env: ENV, streamRetries: 1 },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi.");
    expect(completed.params.turn.status).toBe("completed");
    expect(mock.requests).toHaveLength(2);
    expect(server.messages.find((m) => m.method === "error").params).toMatchObject({
      willRetry: true,
      error: { message: "Reconnecting... 1/1", codexErrorInfo: { responseStreamDisconnected: {} }, additionalDetails: "backend hiccup" },
    });
    expect(completedItems(server, "agentMessage").map((item) => item.text)).toEqual(["Partial", "Whole."]);
  });

  it("fails the turn as contextWindowExceeded when Gemini says the input is too long", async () => {
    const tooLong = googleError(400, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "INVALID_ARGUMENT");
    const { server, mock } = await launch([{ httpStatus: 400, errorBody: tooLong }], { ...GEMINI, env: ENV, requestRetries: 3 });
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi.");
    expect(completed.params.turn).toMatchObject({ status: "failed", error: { codexErrorInfo: "contextWindowExceeded" } });
    expect(mock.requests).toHaveLength(1);
  });

  it("names the provider and its URL when nothing listens there", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const server = await serverAt(url);
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi.");
    expect(completed.params.turn.status).toBe("failed");
    expect(completed.params.turn.error).toMatchObject({
      message: `could not reach model provider \`gem\` at ${url}/: connection refused (ECONNREFUSED). Is the server at ${url}/ running?`,
      codexErrorInfo: { httpConnectionFailed: { httpStatusCode: null } },
    });
  });

  it("closes the HTTP stream at once on an interrupt, and sends query_params with every request", async () => {
    const chunks = [...geminiEvents({ items: [{ type: "message", text: "Working on it" }], hang: true }, "resp_hold", "gemini-2.5-flash")].map((event) => event.data);
    const endpoint = await geminiEndpoint(chunks, { hold: true });
    const server = await serverAt(`${endpoint.url}/v1beta`, [`query_params={tag="agent"}`]);
    const threadId = await startThread(server);
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Work." }] });
    const turnId = started.result.turn.id;
    await server.waitFor((m) => m.method === "item/agentMessage/delta");
    expect((await server.request("turn/interrupt", { threadId, turnId })).result).toEqual({});
    await endpoint.closed;
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("interrupted");
    // The version in base_url is the SDK's API version, not a second one.
    expect(endpoint.urls).toEqual(["/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&tag=agent"]);
  });

  it("ends the answer with what came when Gemini stops for SAFETY, and fails the turn on a blocked prompt", async () => {
    const candidate = (parts: object[], finishReason?: string) => ({ candidates: [{ content: { role: "model", parts }, index: 0, finishReason }], responseId: "resp_safe" });
    const stopped = await geminiEndpoint([candidate([{ text: "Half an" }]), candidate([{ text: " answer" }], "SAFETY")]);
    const server = await serverAt(stopped.url);
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi.");
    expect(completed.params.turn.status).toBe("completed");
    expect(completedItems(server, "agentMessage")).toEqual([expect.objectContaining({ text: "Half an answer" })]);

    const blocked = await geminiEndpoint([{ promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, responseId: "resp_blocked" }]);
    const refused = await serverAt(blocked.url);
    const { completed: failed } = await runTurn(refused, await startThread(refused), "Hi.");
    expect(failed.params.turn).toMatchObject({ status: "failed", error: { message: "Gemini blocked the prompt (PROHIBITED_CONTENT)." } });
  });

  it("compacts a thread on thread/compact/start", async () => {
    const { server, mock } = await launch(
      [{ items: [{ type: "message", text: "Old details nobody needs." }] }, { items: [{ type: "message", text: "Summary: the user wants a haiku." }] }],
      { ...GEMINI, env: ENV },
    );
    const threadId = await startThread(server);
    const { turnId } = await runTurn(server, threadId, "Write a haiku.");
    expect((await server.request("thread/compact/start", { threadId })).result).toEqual({});
    const done = await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id !== turnId, "the compaction turn");
    expect(done.params.turn.status).toBe("completed");
    const request = contents(mock, 1);
    expect(request.at(-2)).toEqual({ role: "model", parts: [{ text: "Old details nobody needs." }] });
    expect(request.at(-1).parts.at(-1).text).toMatch(/^CONTEXT CHECKPOINT COMPACTION/);
  });
});
