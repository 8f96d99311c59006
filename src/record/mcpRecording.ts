import type { McpServerEntry } from "../agent/index.js";
import type { RecordedMcpCall, RecordedMcpServer, RecordedMcpServers } from "../testing/recordedMcp.js";
import type { AuditLine } from "./sessionScenario.js";

/** How a turn that was interrupted ends an MCP call still waiting (src/threads/activeTurn.ts). */
const CUT_SHORT = "the turn ended before the tool answered";

/** The JSON-RPC code a failed `mcpServer/tool/call` answers with (a tool that could not answer). */
const INTERNAL_ERROR = -32603;

type Listing = Omit<RecordedMcpServer, "calls" | "resources">;

/**
 * The MCP servers a session used, from its messages: each tool call's answer (the model's calls
 * as their items show them, and the client's own `mcpServer/tool/call`), and each
 * `mcpServer/resource/read`, in order. A server's tools are as `listed` (the recording server's
 * own listing) or, for a log or a thread that holds none, the tools that were called.
 */
export function mcpServersFrom(lines: readonly AuditLine[], listed: Readonly<Record<string, Listing>> = {}): RecordedMcpServers {
  const servers: Record<string, RecordedMcpServer> = {};
  const server = (name: string): RecordedMcpServer => (servers[name] ??= { ...(listed[name] ?? { tools: [] }), calls: [], resources: [] });
  const asked = new Map<unknown, { method: string; params: Record<string, any> }>();
  for (const { dir, msg } of lines) {
    if (dir === "in" && (msg.method === "mcpServer/tool/call" || msg.method === "mcpServer/resource/read") && msg.id !== undefined) {
      asked.set(msg.id, { method: msg.method, params: msg.params ?? {} });
    } else if (dir === "out" && msg.method === "item/completed" && msg.params?.item?.type === "mcpToolCall") {
      const item = msg.params.item;
      server(item.server).calls.push(itemCall(item));
    } else if (dir === "out" && msg.method === undefined && asked.has(msg.id)) {
      const { method, params } = asked.get(msg.id)!;
      asked.delete(msg.id);
      if (method === "mcpServer/tool/call") {
        const call = clientCall(params, msg);
        if (call) server(params.server).calls.push(call);
      } else {
        const read = resourceRead(params, msg);
        if (read) server(params.server).resources.push(read);
      }
    }
  }
  // Servers ready but never used still answer their listing (`mcpServerStatus/list`) and offer their tools.
  for (const name of Object.keys(listed)) server(name);
  for (const recorded of Object.values(servers)) {
    for (const call of recorded.calls) {
      if (!recorded.tools.some((tool) => tool.name === call.tool)) recorded.tools.push({ name: call.tool, inputSchema: { type: "object", properties: {} } });
    }
  }
  return servers;
}

/** The listings of the servers ready at the end of a recording: what a replay offers in their place. */
export function mcpListings(entries: readonly McpServerEntry[]): Record<string, Listing> {
  const listings: Record<string, Listing> = {};
  for (const { name, config, state } of entries) {
    if (state.status !== "ready") continue;
    const { connection } = state;
    const url = config.command === undefined && typeof config.url === "string" ? origin(config.url) : undefined;
    listings[name] = {
      ...(url === undefined ? {} : { url }),
      ...(connection.serverInfo ? { serverInfo: connection.serverInfo } : {}),
      ...(connection.capabilities ? { capabilities: connection.capabilities as Record<string, unknown> } : {}),
      tools: connection.tools.map((tool) => ({ ...tool })) as Listing["tools"],
    };
  }
  return listings;
}

/** A model's call as its completed item shows it. */
function itemCall(item: Record<string, any>): RecordedMcpCall {
  const base = { tool: String(item.tool), arguments: isObject(item.arguments) ? item.arguments : {} };
  if (item.result) return { ...base, result: { ...item.result, content: item.result.content ?? [], isError: item.status === "failed" } };
  const message = String(item.error?.message ?? "");
  if (message === CUT_SHORT) return { ...base, pending: true };
  // The item says `MCP tool s/t failed: <why>`; the replayed call gives the why.
  return { ...base, error: message.replace(/^MCP tool \S+ failed: /, "") };
}

/** A client's own call and its answer; undefined when the server refused it before calling (a replay refuses it the same way). */
function clientCall(params: Record<string, any>, answer: Record<string, any>): RecordedMcpCall | undefined {
  const base = { tool: String(params.tool), arguments: isObject(params.arguments) ? params.arguments : {} };
  if (answer.result) return { ...base, result: { content: answer.result.content ?? [], ...("structuredContent" in answer.result ? { structuredContent: answer.result.structuredContent } : {}), isError: answer.result.isError === true } };
  if (answer.error?.code !== INTERNAL_ERROR) return undefined;
  return { ...base, error: String(answer.error.message).replace(/^MCP tool `[^`]*` failed: /, "") };
}

/** A resource read and its answer; undefined when the server was not there to ask. */
function resourceRead(params: Record<string, any>, answer: Record<string, any>): RecordedMcpServer["resources"][number] | undefined {
  const uri = String(params.uri);
  if (answer.result) return { uri, contents: answer.result.contents ?? [] };
  // As mcpServer/resource/read words it; any other error came before the server was asked.
  const prefix = `MCP server \`${String(params.server)}\` could not read ${uri}: `;
  const message = String(answer.error?.message ?? "");
  return message.startsWith(prefix) ? { uri, error: message.slice(prefix.length) } : undefined;
}

function origin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
