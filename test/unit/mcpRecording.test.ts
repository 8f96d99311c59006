import { describe, expect, it } from "vitest";
import { mcpServersFrom } from "../../src/record/mcpRecording.js";
import { responsesFromItems } from "../../src/record/responsesFromItems.js";
import type { AuditLine } from "../../src/record/sessionScenario.js";
import { RecordedMcpServer, replayedServer } from "../../src/testing/recordedMcp.js";

const out = (msg: Record<string, unknown>): AuditLine => ({ dir: "out", msg });
const inbound = (msg: Record<string, unknown>): AuditLine => ({ dir: "in", msg });
const mcpItem = (id: string, extra: Record<string, unknown>) => ({ type: "mcpToolCall", id, server: "docs", tool: "search", arguments: { q: id }, durationMs: 3, ...extra });

describe("recording MCP servers", () => {
  it("keeps each call's answer, a failure's reason, a call cut short by an interrupt, and only the client's calls the server was asked", () => {
    const lines: AuditLine[] = [
      out({ method: "turn/started", params: {} }),
      out({ method: "item/completed", params: { item: mcpItem("a", { status: "completed", result: { content: [{ type: "text", text: "found" }], structuredContent: { hits: 1 } }, error: null }) } }),
      out({ method: "item/completed", params: { item: mcpItem("b", { status: "failed", result: null, error: { message: "MCP tool docs/search failed: timed out after 60000 ms" } }) } }),
      out({ method: "item/completed", params: { item: mcpItem("c", { status: "failed", result: null, error: { message: "the turn ended before the tool answered" } }) } }),
      out({ method: "turn/completed", params: { turn: { status: "interrupted" } } }),
      inbound({ id: 7, method: "mcpServer/tool/call", params: { server: "docs", tool: "fetch", arguments: { url: "x" } } }),
      out({ id: 7, error: { code: -32603, message: "MCP tool `docs.fetch` failed: connection reset" } }),
      inbound({ id: 8, method: "mcpServer/tool/call", params: { server: "docs", tool: "nope" } }),
      out({ id: 8, error: { code: -32600, message: "MCP server `docs` has no tool `nope`" } }),
      inbound({ id: 9, method: "mcpServer/resource/read", params: { server: "docs", uri: "memo://a: b" } }),
      out({ id: 9, error: { code: -32600, message: "MCP server `docs` could not read memo://a: b: gone" } }),
    ];
    const { docs } = mcpServersFrom(lines);
    expect(docs!.calls).toEqual([
      { tool: "search", arguments: { q: "a" }, result: { content: [{ type: "text", text: "found" }], structuredContent: { hits: 1 }, isError: false } },
      { tool: "search", arguments: { q: "b" }, error: "timed out after 60000 ms" },
      { tool: "search", arguments: { q: "c" }, pending: true },
      { tool: "fetch", arguments: { url: "x" }, error: "connection reset" },
    ]);
    expect(docs!.resources).toEqual([{ uri: "memo://a: b", error: "gone" }]);
    // No listing (a log, a thread): the tools called, with an open schema.
    expect(docs!.tools).toEqual([
      { name: "search", inputSchema: { type: "object", properties: {} } },
      { name: "fetch", inputSchema: { type: "object", properties: {} } },
    ]);
    // The model's calls come back as function calls of the qualified name; the interrupted turn's response had ended (a tool ran).
    const { responses } = responsesFromItems(lines);
    expect(responses).toEqual([{ items: ["a", "b", "c"].map((id) => ({ type: "function_call", name: "mcp__docs__search", arguments: { q: id }, callId: id })) }]);
  });

  it("answers a replayed call from the first unused recording of the same arguments, then of the tool, and says when it has none", async () => {
    const text = (value: string) => ({ content: [{ type: "text", text: value }], isError: false });
    const { connection } = replayedServer(
      RecordedMcpServer.parse({
        tools: [{ name: "search", inputSchema: { type: "object" } }, { name: "wait", inputSchema: { type: "object" } }],
        calls: [
          { tool: "search", arguments: { q: "one" }, result: text("1") },
          { tool: "search", arguments: { q: "two" }, result: text("2") },
          { tool: "wait", arguments: {}, pending: true },
        ],
      }),
    );
    const call = (q: string) => connection.callTool("search", { q }, { signal: new AbortController().signal, timeoutMs: 1000 });
    expect(await call("two")).toEqual({ ok: true, result: text("2") });
    expect(await call("other")).toEqual({ ok: true, result: text("1") });
    // Asked more often than recorded: the same arguments' answer again.
    expect(await call("two")).toEqual({ ok: true, result: text("2") });
    expect(await call("four")).toEqual({ ok: false, message: "the recording has no answer of tool `search` for these arguments" });
    // A call that had not answered when its turn was interrupted waits for the interrupt.
    const interrupt = new AbortController();
    const waiting = connection.callTool("wait", {}, { signal: interrupt.signal, timeoutMs: 1000 });
    interrupt.abort(new Error("interrupted"));
    await expect(waiting).rejects.toThrow("interrupted");
    await expect(connection.readResource("memo://x", { timeoutMs: 1000 })).rejects.toThrow("no read of this resource");
  });
});
