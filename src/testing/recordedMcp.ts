import * as z from "zod";
import type { McpCallOutcome, McpConnection, McpResourceContent, McpToolDefinition } from "../agent/mcp/mcpConnection.js";
import type { McpServerConfig } from "../config/schema.js";
import { StartupError } from "../runtime/systemErrors.js";
import { issuePath } from "./issuePath.js";
import { readStartupJson } from "./startupJson.js";

/** What a tool answered: MCP's `CallToolResult` as the item shows it. */
const RecordedMcpResult = z.object({
  content: z.array(z.unknown()),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().default(false),
});

/**
 * One recorded tool call: what the tool answered (`result`), or why it did not (`error`), or
 * `pending` when it had not answered by the time its turn was interrupted (the replay's call then
 * waits for the interrupt too).
 */
export const RecordedMcpCall = z.union([
  z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()).default({}), result: RecordedMcpResult }),
  z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()).default({}), error: z.string() }),
  z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()).default({}), pending: z.literal(true) }),
]);
export type RecordedMcpCall = z.infer<typeof RecordedMcpCall>;

/** One recorded resource read: its contents, or the server's error. */
const RecordedMcpResource = z.union([
  z.object({ uri: z.string(), contents: z.array(z.looseObject({ uri: z.string() })) }),
  z.object({ uri: z.string(), error: z.string() }),
]);

/**
 * An MCP server as a session saw it: its tools as it listed them, and each call's answer in the
 * order they came. A replay answers from these instead of starting the server, whose answers
 * depend on the machine (and which may not exist there).
 */
export const RecordedMcpServer = z.object({
  /** An HTTP server's origin; absent for a stdio server. */
  url: z.string().optional(),
  serverInfo: z.looseObject({ name: z.string(), version: z.string() }).optional(),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  tools: z.array(z.looseObject({ name: z.string(), inputSchema: z.looseObject({ type: z.literal("object") }) })).default([]),
  calls: z.array(RecordedMcpCall).default([]),
  resources: z.array(RecordedMcpResource).default([]),
});
export type RecordedMcpServer = z.infer<typeof RecordedMcpServer>;

/** Recorded servers by name, as a scenario's `mcpServers` holds them. */
export const RecordedMcpServers = z.record(z.string(), RecordedMcpServer);
export type RecordedMcpServers = z.infer<typeof RecordedMcpServers>;

/** A recorded server as the MCP manager takes it: a config entry, and the connection that answers for it. */
export interface ReplayedMcpServer {
  readonly config: McpServerConfig;
  readonly connection: McpConnection;
}

/** What a stdio server's config shows in a replay (where the recorded command may not exist). */
const RECORDED_COMMAND = "(recorded)";

/** Reads a file of recorded servers (`scripted_mcp_script`); a bad file is a start-up error naming the entry. */
export async function loadRecordedMcp(file: string): Promise<Record<string, ReplayedMcpServer>> {
  const json = await readStartupJson(file, "the recorded MCP servers");
  const parsed = RecordedMcpServers.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StartupError(`the recorded MCP servers ${file}: at ${issuePath(issue.path) || "top level"}: ${issue.message}`);
  }
  return Object.fromEntries(Object.entries(parsed.data).map(([name, server]) => [name, replayedServer(server)]));
}

/** A recorded server as a config entry and a connection. */
export function replayedServer(server: RecordedMcpServer): ReplayedMcpServer {
  return { config: server.url === undefined ? { command: RECORDED_COMMAND } : { url: server.url }, connection: recordedConnection(server) };
}

/**
 * A connection that answers as the recorded server did. A call takes the first unused recorded
 * call of that tool with the same arguments, else the first unused one of that tool, else the last
 * one with the same arguments (asked more often than recorded); with none, it fails saying so.
 */
function recordedConnection(server: RecordedMcpServer): McpConnection {
  const used = new Set<number>();
  const same = (call: RecordedMcpCall, tool: string, args: string) => call.tool === tool && JSON.stringify(call.arguments) === args;
  const pick = (tool: string, args: Record<string, unknown>): RecordedMcpCall | undefined => {
    const text = JSON.stringify(args);
    const { calls } = server;
    let index = calls.findIndex((call, at) => !used.has(at) && same(call, tool, text));
    if (index < 0) index = calls.findIndex((call, at) => !used.has(at) && call.tool === tool);
    if (index < 0) index = calls.findLastIndex((call) => same(call, tool, text));
    if (index < 0) return undefined;
    used.add(index);
    return calls[index];
  };
  return {
    tools: server.tools as unknown as McpToolDefinition[],
    serverInfo: (server.serverInfo ?? null) as McpConnection["serverInfo"],
    capabilities: (server.capabilities ?? null) as McpConnection["capabilities"],
    async callTool(tool, args, { signal }): Promise<McpCallOutcome> {
      const call = pick(tool, args);
      if (!call) return { ok: false, message: `the recording has no answer of tool \`${tool}\` for these arguments` };
      if ("pending" in call) {
        await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
        throw signal.reason;
      }
      if ("error" in call) return { ok: false, message: call.error };
      return { ok: true, result: call.result };
    },
    async readResource(uri) {
      const found = server.resources.find((resource) => resource.uri === uri);
      if (!found) throw new Error("the recording has no read of this resource");
      if ("error" in found) throw new Error(found.error);
      return found.contents as unknown as McpResourceContent[];
    },
    close: async () => undefined,
  };
}
