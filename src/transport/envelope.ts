import type { Message } from "vscode-jsonrpc/node";
import { ErrorCode, type RequestId } from "../protocol/jsonrpc.js";

/** A line that is not an acceptable JSON-RPC message, with the error to answer it with. */
export interface InvalidMessage {
  /** The request id if one could be read, else null (as JSON-RPC prescribes). */
  readonly id: RequestId | null;
  readonly code: ErrorCode;
  readonly message: string;
}

/** The outcome of reading one line. */
export type Envelope =
  | { kind: "message"; message: Message }
  | { kind: "invalid"; invalid: InvalidMessage }
  | { kind: "ignored"; reason: string };

function isValidId(id: unknown): id is RequestId {
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));
}

function invalid(id: RequestId | null, code: ErrorCode, message: string): Envelope {
  return { kind: "invalid", invalid: { id, code, message } };
}

/**
 * Parses one line into a JSON-RPC message. Accepts messages with or without `"jsonrpc": "2.0"`
 * (Codex omits it) and normalizes them to carry it, since vscode-jsonrpc expects it.
 */
export function parseEnvelope(text: string): Envelope {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return invalid(null, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`);
  }
  if (Array.isArray(value)) {
    return invalid(null, ErrorCode.InvalidRequest, "Invalid request: batch requests are not supported");
  }
  if (typeof value !== "object" || value === null) {
    return invalid(null, ErrorCode.InvalidRequest, "Invalid request: a message must be a JSON object");
  }
  const record = value as Record<string, unknown>;
  const hasId = Object.hasOwn(record, "id");
  const id = hasId && isValidId(record.id) ? record.id : null;
  const isResponse = !Object.hasOwn(record, "method") && (Object.hasOwn(record, "result") || Object.hasOwn(record, "error"));
  if (isResponse) {
    // A response is never answered, not even when it is malformed: that could ping-pong forever.
    return id === null
      ? { kind: "ignored", reason: "a response without a usable `id`" }
      : { kind: "message", message: { ...record, jsonrpc: "2.0" } as Message };
  }
  if (hasId && id === null) {
    return invalid(null, ErrorCode.InvalidRequest, "Invalid request: `id` must be a string or an integer");
  }
  if (record.jsonrpc !== undefined && record.jsonrpc !== "2.0") {
    return invalid(id, ErrorCode.InvalidRequest, 'Invalid request: `jsonrpc` must be "2.0" when present');
  }
  if (!Object.hasOwn(record, "method")) {
    return invalid(
      id,
      ErrorCode.InvalidRequest,
      "Invalid request: expected a request (`id` + `method`), a notification (`method`) or a response (`id` + `result`/`error`)",
    );
  }
  if (typeof record.method !== "string" || record.method.length === 0) {
    return invalid(id, ErrorCode.InvalidRequest, "Invalid request: `method` must be a non-empty string");
  }
  const params = record.params === null ? undefined : record.params;
  const message = hasId
    ? { jsonrpc: "2.0", id, method: record.method, params }
    : { jsonrpc: "2.0", method: record.method, params };
  return { kind: "message", message: message as Message };
}
