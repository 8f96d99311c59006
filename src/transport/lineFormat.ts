/**
 * A message as one output line: without `"jsonrpc"` unless asked for (Codex omits it), newline
 * terminated. Kept apart from the writer (and vscode-jsonrpc): the command line's early handshake
 * writes its `initialize` response with it before the server has loaded.
 */
export function serializeMessage(message: object, includeJsonrpc: boolean): string {
  const { jsonrpc: _ignored, ...rest } = message as Record<string, unknown>;
  return JSON.stringify(includeJsonrpc ? { jsonrpc: "2.0", ...rest } : rest) + "\n";
}
