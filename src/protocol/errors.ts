import { ResponseError } from "vscode-jsonrpc/node";
import type { z } from "zod";
import { ErrorCode } from "./jsonrpc.js";

/**
 * A JSON-RPC error raised by a handler; its code and message go on the wire as they are. It is
 * vscode-jsonrpc's ResponseError, which cannot be subclassed (its constructor resets the prototype).
 */
export type RpcError = ResponseError<unknown>;

/** Creates an {@link RpcError}. */
export function rpcError(code: ErrorCode, message: string, data?: unknown): RpcError {
  return new ResponseError(code, message, data);
}

/** True for errors meant for the wire as they are. */
export function isRpcError(error: unknown): error is RpcError {
  return error instanceof ResponseError;
}

/** -32600 with Codex's wording for a request sent before `initialize`. */
export function notInitialized(): RpcError {
  return rpcError(ErrorCode.InvalidRequest, "Not initialized");
}

/** -32600 with Codex's wording for a second `initialize` on one connection. */
export function alreadyInitialized(): RpcError {
  return rpcError(ErrorCode.InvalidRequest, "Already initialized");
}

/** -32600 for a request that is well-formed but not acceptable in the current state. */
export function invalidRequest(message: string, data?: unknown): RpcError {
  return rpcError(ErrorCode.InvalidRequest, message, data);
}

/** -32601 naming the method; `known` says Codex has it but we do not implement it yet. */
export function methodNotFound(method: string, known: boolean): RpcError {
  const message = known
    ? `Method not implemented: ${method} (part of the Codex app-server protocol, not supported by agent-app-server yet)`
    : `Method not found: ${method}`;
  return rpcError(ErrorCode.MethodNotFound, message, { method });
}

/** -32601 for a Codex method this server deliberately does not serve, saying why. */
export function methodOutOfScope(method: string, reason: string): RpcError {
  return rpcError(ErrorCode.MethodNotFound, `${method} is not served by agent-app-server: ${reason}`, { method, reason });
}

/** -32602 whose message names each bad field path and what is wrong with it. */
export function invalidParams(method: string, error: z.ZodError): RpcError {
  const problems = error.issues.map((issue) => `${formatPath(issue.path)}: ${describeIssue(issue)}`);
  return rpcError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${problems.join("; ")}`, {
    issues: error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message, code: issue.code })),
  });
}

/** -32602 for a field the schema accepts but the server refuses (a limit), worded and shaped as {@link invalidParams}. */
export function invalidParam(method: string, field: string, problem: string, data?: Record<string, unknown>): RpcError {
  return rpcError(ErrorCode.InvalidParams, `Invalid params for ${method}: params.${field}: ${problem}`, {
    issues: [{ path: [field], message: problem, code: "custom" }],
    ...data,
  });
}

/** -32001, Codex's retryable answer when the request queue is full. */
export function serverOverloaded(): RpcError {
  return rpcError(ErrorCode.ServerOverloaded, "Server overloaded; retry later.");
}

/** -32603 for a file operation the operating system refused, as Codex; the message says which path and why. */
export function ioFailure(message: string, data?: unknown): RpcError {
  return rpcError(ErrorCode.InternalError, message, data);
}

/** -32603 for an unexpected failure; the details go to the log, never to the wire. */
export function internalError(): RpcError {
  return rpcError(ErrorCode.InternalError, "Internal error; see the server log for details.");
}

/** Zod says "expected string, received undefined" for a missing field; say it plainly. */
function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) {
    return `missing required field (expected ${issue.expected})`;
  }
  return issue.message;
}

/** Renders a zod issue path as `params.a.b[0]`. */
function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "params";
  for (const part of path) {
    out += typeof part === "number" ? `[${part}]` : `.${String(part)}`;
  }
  return out;
}
