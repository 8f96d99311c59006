import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, runTurn, servers, startThread, tempDir } from "../support/turnHarness.js";
import { closedPort } from "../support/ports.js";

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");


function completedItems(server: ServerProcess, type: string): any[] {
  return server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === type).map((m) => m.params.item);
}

/** A server whose provider `id` (default retries) points at `baseUrl`, initialized. */
async function serverWithProvider(id: string, table: string): Promise<ServerProcess> {
  const server = ServerProcess.start({
    args: ["app-server", "-c", `model_provider="${id}"`, "-c", `model_providers.${id}={${table}}`, "-c", `model="qwen3"`],
    env: { OPENAI_API_KEY: "" },
  });
  servers.push(server);
  await server.initialize();
  return server;
}

describe("the chat wire against real servers' habits", () => {
  it("runs a tool call whose id and name the server repeats in every chunk", async () => {
    const { server, mock } = await launch(
      [
        { items: [{ type: "exec", cmd: "echo hi-from-chat", callId: "call_1" }], chat: { toolCalls: "repeated", usage: "none" } },
        { items: [{ type: "reasoning", content: ["Saw it."] }, { type: "message", text: "Done." }], chat: { usage: "withFinish" } },
      ],
      { wire: "chat", sandbox: "danger-full-access" },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Run it.");
    expect(completed.params.turn.status).toBe("completed");
    expect(completedItems(server, "commandExecution")).toEqual([expect.objectContaining({ id: "call_1", status: "completed", exitCode: 0, aggregatedOutput: "hi-from-chat\n" })]);
    const messages = mock.requests[1]!.body.messages as any[];
    expect(messages.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_1", function: { name: "exec_command" } }] });
    expect(messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_1", content: expect.stringContaining("hi-from-chat") });
    expect(completedItems(server, "reasoning")).toEqual([expect.objectContaining({ content: ["Saw it."] })]);
    // Only the response that reported usage counts.
    expect(server.messages.filter((m) => m.method === "thread/tokenUsage/updated")).toHaveLength(1);
  });

  it("keeps a multi-turn conversation with AGENTS.md, tool calls and an image acceptable to a strict chat template", async () => {
    const workspace = tempDir("aas-chat-ws-");
    writeFileSync(path.join(workspace, "AGENTS.md"), "Answer briefly.\n");
    writeFileSync(path.join(workspace, "dot.png"), PNG);
    const { server, mock } = await launch(
      [
        {
          items: [
            { type: "reasoning", content: ["Plan."] },
            { type: "message", text: "Looking." },
            { type: "exec", cmd: "echo one", callId: "call_a" },
            { type: "function_call", name: "update_plan", arguments: { plan: [{ step: "Look", status: "in_progress" }] }, callId: "call_b" },
          ],
          chat: { toolCalls: "split" },
        },
        { items: [{ type: "function_call", name: "view_image", arguments: { path: "dot.png" }, callId: "call_c" }], chat: { toolCalls: "sameIndex" } },
        { items: [{ type: "message", text: "A dot." }] },
        { items: [{ type: "message", text: "Still a dot." }] },
      ],
      { wire: "chat", sandbox: "danger-full-access", mockOptions: { strictChatTemplate: true } },
    );
    const threadId = await startThread(server, { cwd: workspace, developerInstructions: "Be careful." });
    const first = await runTurn(server, threadId, "What is there?");
    expect(first.completed.params.turn).toMatchObject({ status: "completed", error: null });
    const second = await runTurn(server, threadId, "And now?");
    expect(second.completed.params.turn).toMatchObject({ status: "completed", error: null });
    expect(mock.requests).toHaveLength(4);
    expect(mock.unscripted).toBe(0);
    const messages = mock.requests[3]!.body.messages as any[];
    expect(messages.filter((message) => message.role === "system")).toEqual([messages[0]]);
    expect(messages[0].content).toContain("Be careful.");
    expect(messages[1]).toMatchObject({ role: "user", content: expect.stringMatching(/Answer briefly\.[\s\S]*<environment_context>[\s\S]*What is there\?$/) });
    // Each call is followed by its result, as the history records them; the image comes as the user's.
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant", "user", "assistant", "user"]);
    expect(messages[2]).toMatchObject({ content: "Looking.", tool_calls: [{ id: "call_a" }] });
    expect(messages[4]).toMatchObject({ content: null, tool_calls: [{ id: "call_b" }] });
    expect(messages[9].content).toEqual([expect.objectContaining({ type: "image_url" })]);
    expect(messages.slice(-2)).toEqual([
      { role: "assistant", content: "A dot." },
      { role: "user", content: "And now?" },
    ]);
  });

  it("fails the item of an unknown tool, tells the model, and completes the turn", async () => {
    const { server, mock } = await launch(
      [
        { items: [{ type: "function_call", name: "exec_commandexec_command", arguments: { cmd: "ls" }, callId: "call_x" }] },
        { items: [{ type: "message", text: "Sorry." }] },
      ],
      { wire: "chat" },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Go.");
    expect(completed.params.turn.status).toBe("completed");
    expect(completedItems(server, "dynamicToolCall")).toEqual([
      expect.objectContaining({ id: "call_x", tool: "exec_commandexec_command", arguments: { cmd: "ls" }, status: "failed", success: false }),
    ]);
    const told = (mock.requests[1]!.body.messages as any[]).at(-1);
    expect(told).toMatchObject({ role: "tool", tool_call_id: "call_x" });
    expect(told.content).toMatch(/^unsupported call: exec_commandexec_command\. No tool has this name; the tools are: .*\bexec_command\b/);
  });

  it("retries 500 and 429 answers, and fails the turn on a 400 with the server's reason", async () => {
    const refusal = { object: "error", message: "Conversation roles must alternate user/assistant/user/assistant/...", type: "BadRequestError", param: null, code: 400 };
    const { server, mock } = await launch(
      [{ httpStatus: 500 }, { httpStatus: 429, headers: { "retry-after": "0" } }, { items: [{ type: "message", text: "ok" }] }, { httpStatus: 400, errorBody: refusal }],
      { wire: "chat", requestRetries: 2 },
    );
    const threadId = await startThread(server);
    const first = await runTurn(server, threadId, "Hi");
    expect(first.completed.params.turn.status).toBe("completed");
    expect(mock.requests).toHaveLength(3);
    const second = await runTurn(server, threadId, "Again");
    expect(second.completed.params.turn.status).toBe("failed");
    expect(second.completed.params.turn.error).toMatchObject({ codexErrorInfo: "badRequest", message: expect.stringContaining("Conversation roles must alternate") });
  });

  it("fails the turn when nothing listens on 127.0.0.1, naming the provider and its URL", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    // The built-in `ollama` provider, moved; its default retries would take half a minute to give up.
    const server = await serverWithProvider("ollama", `base_url="${url}"`);
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(completed.params.turn.status).toBe("failed");
    expect(completed.params.turn.error).toMatchObject({
      message: `could not reach model provider \`ollama\` at ${url}: connection refused (ECONNREFUSED). Is Ollama running? Start it with \`ollama serve\`.`,
      codexErrorInfo: { httpConnectionFailed: { httpStatusCode: null } },
    });
    expect(server.messages.some((m) => m.method === "error" && m.params.willRetry)).toBe(false);
  });

  it("fails at once, saying why, for a base_url on a port fetch refuses (6000), instead of retrying and blaming the server", async () => {
    const url = "http://127.0.0.1:6000/v1";
    // Default retries: a failure that retries would take half a minute.
    const server = await serverWithProvider("local", `name="Local",base_url="${url}",wire_api="responses"`);
    const threadId = await startThread(server);
    const started = Date.now();
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(completed.params.turn.status).toBe("failed");
    expect(completed.params.turn.error.message).toBe(
      `model provider \`local\` is at ${url}, on port 6000, which Node's fetch refuses to connect to (a "bad port" of the fetch standard); serve it on another port and change model_providers.local.base_url`,
    );
    expect(server.messages.some((m) => m.method === "error" && m.params.willRetry)).toBe(false);
  });

  it("says the same on the Responses wire, asking about the server at the URL", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const server = await serverWithProvider("local", `name="Local",base_url="${url}",wire_api="responses"`);
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(completed.params.turn.status).toBe("failed");
    expect(completed.params.turn.error.message).toBe(`could not reach model provider \`local\` at ${url}: connection refused (ECONNREFUSED). Is the server at ${url} running?`);
  });
});
