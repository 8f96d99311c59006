import type { McpServerConfig } from "../../config/schema.js";
import type { Tool } from "../tools/tool.js";
import { McpManager, type McpManagerOptions, type McpServerEntry } from "./mcpManager.js";

/**
 * MCP servers that belong to one thread (an ACP session's `mcpServers`), beside the configured
 * ones: each thread's run under a manager of its own, so one session's servers (another project's
 * database, say) are never offered to another's model. A thread's server replaces a configured one
 * of the same name for that thread only.
 */
export class ThreadMcpServers {
  private readonly byThread = new Map<string, McpManager>();
  private closing = false;

  /** `options` are the configured servers' manager's, less the servers and what is the configured ones' own. */
  constructor(private readonly options: Omit<McpManagerOptions, "servers" | "recorded" | "onStatus">) {}

  /**
   * Starts `servers` for `threadId` (each unless one of that name runs for it already with the
   * same config), and resolves once every start has ended, ready or failed.
   */
  async add(threadId: string, servers: Readonly<Record<string, McpServerConfig>>): Promise<void> {
    if (this.closing || Object.keys(servers).length === 0) return;
    let manager = this.byThread.get(threadId);
    if (!manager) {
      // Their start-up statuses are the session's: a Codex client lists the configured servers only.
      manager = new McpManager({ ...this.options, servers: {}, onStatus: () => undefined });
      this.byThread.set(threadId, manager);
    }
    await manager.add(servers);
  }

  /** The tools `threadId`'s model is offered: its own servers', and the configured servers' it has none of the same name of. */
  tools(threadId: string, configured: McpManager): Tool[] {
    const own = this.byThread.get(threadId);
    if (!own) return configured.tools();
    return [...configured.tools(new Set(own.servers().map((entry) => entry.name))), ...own.tools()];
  }

  /** Every thread's servers (their programs stay read-only in every sandbox). */
  servers(): McpServerEntry[] {
    return [...this.byThread.values()].flatMap((manager) => manager.servers());
  }

  /** Stops `threadId`'s servers (its session closed). */
  async close(threadId: string): Promise<void> {
    const manager = this.byThread.get(threadId);
    this.byThread.delete(threadId);
    await manager?.close();
  }

  /** Stops every thread's servers (shutdown); none start after. */
  async closeAll(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.byThread.keys()].map((threadId) => this.close(threadId)));
  }
}
