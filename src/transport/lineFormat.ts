/** A message as one output line: without `"jsonrpc"` unless asked for (Codex omits it), newline terminated. */
export function serializeMessage(message: object, includeJsonrpc: boolean): string {
  const { jsonrpc: _ignored, ...rest } = message as Record<string, unknown>;
  return JSON.stringify(includeJsonrpc ? { jsonrpc: "2.0", ...rest } : rest) + "\n";
}
