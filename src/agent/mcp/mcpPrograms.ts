import path from "node:path";
import type { McpServerConfig } from "../../config/schema.js";

/**
 * The files the configured stdio MCP servers run: every word of their command line that names a
 * path (`./server.js`, `/opt/x/bin/mcp`, `~/tools/mcp.py`), resolved from the server's `cwd` (else
 * `defaultCwd`). They run as the user, outside any sandbox, so a sandboxed command must not be
 * able to rewrite them (the sandbox keeps them read-only; a patch to one is asked).
 */
export function mcpProgramPaths(servers: Readonly<Record<string, McpServerConfig>>, defaultCwd: string, home: string | undefined): string[] {
  const paths: string[] = [];
  for (const server of Object.values(servers)) {
    if (server.command === undefined) continue;
    const base = path.resolve(defaultCwd, server.cwd ?? ".");
    for (const word of [server.command, ...(server.args ?? [])]) {
      if (word.startsWith("~/") && home) paths.push(path.join(home, word.slice(2)));
      else if (word.includes("/")) paths.push(path.resolve(base, word));
    }
  }
  return paths;
}
