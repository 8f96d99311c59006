import { statSync } from "node:fs";
import path from "node:path";
import type { McpServerConfig } from "../../config/schema.js";

/**
 * The files the configured stdio MCP servers run: every word of their command line that names a
 * path (`./server.js`, `/opt/x/bin/mcp`, `~/tools/mcp.py`), resolved from the server's `cwd` (else
 * `defaultCwd`); a bare word that names a file there (`node server.js`); and for a bare command,
 * the program of that name in each directory of the PATH it starts with (`env.PATH` unless the
 * server sets its own), which may be relative to its cwd. They run as the user, outside any
 * sandbox, so a sandboxed command must not be able to rewrite them (the sandbox keeps them
 * read-only; a patch to one is asked). Bare words are kept only when they name a file: a word that
 * names nothing (`stdio`, `--port`) would otherwise become an empty read-only directory in the
 * workspace, and one that names a directory (`mcp-server-filesystem .`) would freeze all of it.
 */
export function mcpProgramPaths(servers: Readonly<Record<string, McpServerConfig>>, defaultCwd: string, env: NodeJS.ProcessEnv): string[] {
  const paths: string[] = [];
  for (const server of Object.values(servers)) {
    if (server.command === undefined) continue;
    const base = path.resolve(defaultCwd, server.cwd ?? ".");
    const searchPath = (server.env?.PATH ?? env.PATH ?? "").split(":");
    for (const [index, word] of [server.command, ...(server.args ?? [])].entries()) {
      if (word.startsWith("~/") && env.HOME) paths.push(path.join(env.HOME, word.slice(2)));
      else if (word.includes("/")) paths.push(path.resolve(base, word));
      else {
        const candidates = index === 0 ? searchPath.map((dir) => path.resolve(base, dir, word)) : [path.resolve(base, word)];
        paths.push(...candidates.filter(isFile));
      }
    }
  }
  return paths;
}

function isFile(candidate: string): boolean {
  try {
    return statSync(candidate).isFile();
  } catch {
    // Missing, or under a PATH entry that is no directory: nothing runs from there.
    return false;
  }
}
