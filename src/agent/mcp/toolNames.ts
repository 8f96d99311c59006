import { createHash } from "node:crypto";

/** The Responses API takes tool names of these characters only, at most 64 of them. */
const ALLOWED = /[^A-Za-z0-9_-]/g;
const MAX_LENGTH = 64;

/** Server names Codex accepts: they become part of tool names as they are. */
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

/** Why `name` cannot name an MCP server, or null when it can. */
export function serverNameProblem(name: string): string | null {
  return SERVER_NAME.test(name) ? null : `Invalid MCP server name '${name}': must match pattern ^[a-zA-Z0-9_-]+$`;
}

/**
 * The name the model calls an MCP tool by, as Codex spells it: `mcp__<server>__<tool>` with
 * other characters replaced by `_`; a name over 64 characters keeps its first 24 and ends with the
 * SHA-1 of the unsanitized name, so long names stay distinct and stable.
 */
export function qualifiedToolName(server: string, tool: string): string {
  const raw = `mcp__${server}__${tool}`;
  const sanitized = raw.replace(ALLOWED, "_");
  if (sanitized.length <= MAX_LENGTH) return sanitized;
  const hash = createHash("sha1").update(raw).digest("hex");
  return sanitized.slice(0, MAX_LENGTH - hash.length) + hash;
}
