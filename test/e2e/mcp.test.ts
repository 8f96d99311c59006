import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { processesMatching } from "../support/processes.js";
import type { ServerProcess } from "../support/serverProcess.js";
import { launch, runTurn, startThread } from "../support/turnHarness.js";
import { mcpArgs, mcpServerScript, stdioTable } from "../support/mcpCalcServer.js";

function waitForStatus(server: ServerProcess, name: string, status: string): Promise<any> {
  return server.waitFor((m) => m.method === "mcpServer/startupStatus/updated" && m.params.name === name && m.params.status === status, `${name} ${status}`);
}

function toolOutput(body: Record<string, unknown>, callId: string): unknown {
  return (body.input as any[]).find((item) => item.type === "function_call_output" && item.call_id === callId)?.output;
}

function mcpItems(server: ServerProcess, method: string): any[] {
  return server.messages.filter((m) => m.method === method && m.params.item.type === "mcpToolCall").map((m) => m.params.item);
}

describe("MCP servers", () => {
  it("lets a client call a tool and read a resource itself, and reloads [mcp_servers] restarting only what changed", async () => {
    const script = mcpServerScript();
    const { server } = await launch([], { args: mcpArgs("calc", stdioTable(script)) });
    await waitForStatus(server, "calc", "ready");
    const threadId = await startThread(server);
    const called = await server.request("mcpServer/tool/call", { threadId, server: "calc", tool: "add", arguments: { a: 2, b: 5 } });
    expect(called.result).toEqual({ content: [{ type: "text", text: "The sum is 7" }], isError: false });
    expect((await server.request("mcpServer/tool/call", { threadId, server: "calc", tool: "nope" })).error).toEqual({ code: -32600, message: "MCP server `calc` has no tool `nope`" });
    expect((await server.request("mcpServer/tool/call", { threadId, server: "other", tool: "add" })).error).toEqual({ code: -32600, message: "no MCP server named `other` is configured" });
    const read = await server.request("mcpServer/resource/read", { server: "calc", uri: "memo://readme" });
    expect(read.result).toEqual({ contents: [{ uri: "memo://readme", mimeType: "text/plain", text: "calc readme" }] });
    expect((await server.request("mcpServer/resource/read", { server: "calc", uri: "memo://missing" })).error.message).toContain("could not read memo://missing");

    // A server added to config.toml starts on reload; the unchanged one keeps running (no second start).
    const write = await server.request("config/value/write", { keyPath: "mcp_servers.extra", value: { command: process.execPath, args: [script] }, mergeStrategy: "replace" });
    expect(write.error).toBeUndefined();
    expect((await server.request("config/mcpServer/reload", null)).result).toEqual({});
    await waitForStatus(server, "extra", "ready");
    const starts = server.messages.filter((m) => m.method === "mcpServer/startupStatus/updated" && m.params.status === "starting").map((m) => m.params.name);
    expect(starts).toEqual(["calc", "extra"]);
    expect((await server.request("mcpServer/tool/call", { threadId, server: "extra", tool: "add", arguments: { a: 1, b: 1 } })).result.content).toEqual([{ type: "text", text: "The sum is 2" }]);
  });

  it("passes the variables env_vars names from the server's environment to a stdio server, and no others", async () => {
    const script = mcpServerScript();
    const { server } = await launch([], {
      args: mcpArgs("calc", `${stdioTable(script)},env_vars=["AAS_TEST_PASSED"]`),
      env: { AAS_TEST_PASSED: "yes", AAS_TEST_KEPT_BACK: "no" },
    });
    await waitForStatus(server, "calc", "ready");
    const threadId = await startThread(server);
    const read = async (name: string) => (await server.request("mcpServer/tool/call", { threadId, server: "calc", tool: "env", arguments: { name } })).result.content[0].text;
    expect(await read("AAS_TEST_PASSED")).toBe("yes");
    expect(await read("AAS_TEST_KEPT_BACK")).toBe("(unset)");
  });

  it("offers a stdio server's tools as mcp__<server>__<tool>, runs calls as mcpToolCall items, lists status, leaves no process behind", async () => {
    const script = mcpServerScript();
    const { server, mock } = await launch(
      [
        { items: [{ type: "function_call", name: "mcp__calc__add", arguments: { a: 2, b: 3 }, callId: "call_add" }] },
        { items: [{ type: "message", text: "2 + 3 = 5." }] },
      ],
      { args: [...mcpArgs("calc", stdioTable(script)), ...mcpArgs("stubborn", stdioTable(script, `,"--stubborn"`))] },
    );
    await Promise.all([waitForStatus(server, "calc", "ready"), waitForStatus(server, "stubborn", "ready")]);
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Add 2 and 3.");
    expect(completed.params.turn.status).toBe("completed");

    const offered = (mock.requests[0]!.body.tools as any[]).map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(["mcp__calc__add", "mcp__calc__slow", "mcp__stubborn__add", "exec_command"]));
    const add = (mock.requests[0]!.body.tools as any[]).find((tool) => tool.name === "mcp__calc__add");
    expect(add).toMatchObject({ type: "function", description: "Adds two numbers.", parameters: { type: "object", required: ["a", "b"] } });

    const [started] = mcpItems(server, "item/started");
    expect(started).toMatchObject({ id: "call_add", server: "calc", tool: "add", status: "inProgress", arguments: { a: 2, b: 3 } });
    const [done] = mcpItems(server, "item/completed");
    expect(done).toMatchObject({
      id: "call_add",
      server: "calc",
      tool: "add",
      status: "completed",
      arguments: { a: 2, b: 3 },
      result: { content: [{ type: "text", text: "The sum is 5" }] },
      error: null,
    });
    expect(done.durationMs).toBeGreaterThanOrEqual(0);
    expect(toolOutput(mock.requests[1]!.body, "call_add")).toBe("The sum is 5");
    const read = await server.request("thread/read", { threadId, includeTurns: true });
    expect(read.result.thread.turns[0].items.filter((item: any) => item.type === "mcpToolCall")).toHaveLength(1);

    const listed = await server.request("mcpServerStatus/list", {});
    expect(listed.result.nextCursor).toBeNull();
    expect(listed.result.data.map((status: any) => [status.name, status.runtimeStatus])).toEqual([
      ["calc", "connected"],
      ["stubborn", "connected"],
    ]);
    expect(listed.result.data[0]).toMatchObject({
      authStatus: "unsupported",
      serverInfo: { name: "calc", version: "1.2.3" },
      toolsError: null,
      httpOrigin: null,
      resources: [],
      resourceTemplates: [],
    });
    expect(Object.keys(listed.result.data[0].tools).sort()).toEqual(["add", "env", "slow"]);
    expect(listed.result.data[0].tools.add).toMatchObject({ name: "add", description: "Adds two numbers.", inputSchema: { type: "object" } });
    const first = await server.request("mcpServerStatus/list", { limit: 1 });
    expect(first.result.data.map((status: any) => status.name)).toEqual(["calc"]);
    const second = await server.request("mcpServerStatus/list", { limit: 1, cursor: first.result.nextCursor });
    expect(second.result).toMatchObject({ data: [{ name: "stubborn" }], nextCursor: null });
    const one = await server.request("mcpServerStatus/list", { serverName: "stubborn" });
    expect(one.result.data.map((status: any) => status.name)).toEqual(["stubborn"]);

    // The servers' stderr went to our log, never to stdout.
    await server.waitForStderr("calc server up");
    // The app-server's own command line names the script too (in its -c flags).
    const mcpChildren = () => processesMatching(script).filter((line) => !line.includes("app-server"));
    expect(mcpChildren()).toHaveLength(2);
    const exit = await server.closeStdin();
    expect(exit.code).toBe(0);
    // The stubborn server ignored EOF and SIGTERM: it was killed.
    expect(mcpChildren()).toEqual([]);
  });

  it("reports servers that cannot start, and turns go on without them", async () => {
    const { server, mock } = await launch([{ items: [{ type: "message", text: "Hi." }] }], {
      args: [
        ...mcpArgs("missing", `command="/nonexistent/mcp-server"`),
        ...mcpArgs("quits", `command=${JSON.stringify(process.execPath)},args=["-e","process.exit(3)"]`),
        ...mcpArgs("off", `command="/nonexistent/mcp-server",enabled=false`),
        ...mcpArgs("http", `url="http://127.0.0.1:9/mcp",bearer_token_env_var="AAS_TEST_UNSET_TOKEN"`),
      ],
    });
    const missing = await waitForStatus(server, "missing", "failed");
    expect(missing.params.error).toBe("MCP server `missing` failed: could not run `/nonexistent/mcp-server`: no such file or directory");
    const quits = await waitForStatus(server, "quits", "failed");
    expect(quits.params.error).toBe("MCP server `quits` failed: the server exited (or closed its connection) before it finished starting");
    const http = await waitForStatus(server, "http", "failed");
    expect(http.params.error).toBe(
      "MCP server `http` failed: environment variable AAS_TEST_UNSET_TOKEN (bearer_token_env_var of [mcp_servers.http]) is not set",
    );

    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hello.");
    expect(completed.params.turn.status).toBe("completed");
    expect((mock.requests[0]!.body.tools as any[]).filter((tool) => tool.name.startsWith("mcp__"))).toEqual([]);

    const listed = await server.request("mcpServerStatus/list", {});
    const byName = Object.fromEntries(listed.result.data.map((status: any) => [status.name, status]));
    expect(Object.keys(byName)).toEqual(["http", "missing", "off", "quits"]);
    expect(byName.missing).toMatchObject({ runtimeStatus: "failed", toolsError: missing.params.error, tools: {} });
    expect(byName.off).toMatchObject({ runtimeStatus: "disabled", toolsError: null });
    expect(byName.http).toMatchObject({ runtimeStatus: "failed", authStatus: "bearerToken", httpOrigin: "http://127.0.0.1:9" });
    // A disabled server is never started, so it has no startup status.
    expect(server.messages.some((m) => m.method === "mcpServer/startupStatus/updated" && m.params.name === "off")).toBe(false);
  });

  it("fails a call that outlives tool_timeout_sec, and an interrupt stops a call", async () => {
    const script = mcpServerScript();
    const { server, mock } = await launch(
      [
        { items: [{ type: "function_call", name: "mcp__calc__slow", arguments: "{}", callId: "call_timeout" }] },
        { items: [{ type: "message", text: "It timed out." }] },
        { items: [{ type: "function_call", name: "mcp__calc__slow", arguments: "", callId: "call_interrupted" }] },
      ],
      { args: mcpArgs("calc", `${stdioTable(script)},tool_timeout_sec=1`) },
    );
    await waitForStatus(server, "calc", "ready");
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Be slow.");
    expect(completed.params.turn.status).toBe("completed");
    const [timedOut] = mcpItems(server, "item/completed");
    const timeoutMessage = "MCP tool calc/slow failed: timed out after 1 s; raise tool_timeout_sec in [mcp_servers.calc] if the tool needs longer";
    expect(timedOut).toMatchObject({ id: "call_timeout", status: "failed", result: null, error: { message: timeoutMessage } });
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(1000);
    expect(toolOutput(mock.requests[1]!.body, "call_timeout")).toBe(timeoutMessage);

    const turn = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Be slow again." }] });
    const turnId = turn.result.turn.id;
    await server.waitFor((m) => m.method === "item/started" && m.params.item.id === "call_interrupted", "the second slow call");
    const started = performance.now();
    expect((await server.request("turn/interrupt", { threadId, turnId })).error).toBeUndefined();
    const ended = await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turnId, "the interrupted turn");
    expect(ended.params.turn.status).toBe("interrupted");
    expect(performance.now() - started).toBeLessThan(5_000);
    const interrupted = mcpItems(server, "item/completed").find((item) => item.id === "call_interrupted");
    expect(interrupted).toMatchObject({ status: "failed" });
  });

  it("connects to a streamable HTTP server with a bearer token", async () => {
    const seenAuth: Array<string | undefined> = [];
    const http = await serveHttpMcp(seenAuth);
    try {
      const { server, mock } = await launch(
        [
          { items: [{ type: "function_call", name: "mcp__web__echo", arguments: { text: "hi" }, callId: "call_echo" }] },
          { items: [{ type: "message", text: "Echoed." }] },
        ],
        {
          args: mcpArgs("web", `url="${http.url}",bearer_token_env_var="AAS_TEST_MCP_TOKEN"`),
          env: { AAS_TEST_MCP_TOKEN: "s3cret" },
        },
      );
      await waitForStatus(server, "web", "ready");
      const threadId = await startThread(server);
      const { completed } = await runTurn(server, threadId, "Echo hi.");
      expect(completed.params.turn.status).toBe("completed");
      expect(mcpItems(server, "item/completed")).toMatchObject([
        { id: "call_echo", server: "web", tool: "echo", status: "completed", result: { content: [{ type: "text", text: "echo: hi" }], structuredContent: { echoed: "hi" } } },
      ]);
      expect(toolOutput(mock.requests[1]!.body, "call_echo")).toBe("echo: hi");
      expect(seenAuth.length).toBeGreaterThan(0);
      expect(new Set(seenAuth)).toEqual(new Set(["Bearer s3cret"]));
      const listed = await server.request("mcpServerStatus/list", {});
      expect(listed.result.data[0]).toMatchObject({ name: "web", runtimeStatus: "connected", authStatus: "bearerToken", httpOrigin: new URL(http.url).origin });
    } finally {
      await http.close();
    }
  });
});

/** A stateless streamable HTTP MCP server in this process with one `echo` tool; records each request's Authorization. */
async function serveHttpMcp(seenAuth: Array<string | undefined>): Promise<{ url: string; close: () => Promise<void> }> {
  const httpServer: Server = createServer((request, response) => {
    seenAuth.push(request.headers.authorization);
    if (request.method !== "POST") {
      response.writeHead(405).end();
      return;
    }
    const mcp = new McpServer({ name: "web", version: "0.0.1" });
    mcp.registerTool(
      "echo",
      { description: "Echoes text.", inputSchema: { text: z.string() }, outputSchema: { echoed: z.string() } },
      async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }], structuredContent: { echoed: text } }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    void mcp.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => {
      httpServer.closeAllConnections();
      return new Promise((resolve) => httpServer.close(() => resolve()));
    },
  };
}
