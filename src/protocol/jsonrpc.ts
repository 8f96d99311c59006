import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** A JSON-RPC request id as Codex accepts it: a string or an integer, never null or fractional. */
export const RequestId = lazySchema(() => z.union([z.string(), z.number().int()]));
export type RequestId = z.infer<typeof RequestId>;

/** JSON-RPC 2.0 error codes, plus Codex's overload code. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ServerOverloaded: -32001,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The error object of a JSON-RPC error response. */
export const JsonRpcErrorObject = lazySchema(() => z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
}));
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObject>;

/** A request as it appears on the wire (`jsonrpc` is optional and ignored). */
export const JsonRpcRequest = lazySchema(() => z.object({
  jsonrpc: z.literal("2.0").optional(),
  id: RequestId,
  method: z.string(),
  params: z.unknown().optional(),
}));
export type JsonRpcRequest = z.infer<typeof JsonRpcRequest>;

/** A notification as it appears on the wire; server notifications add `emittedAtMs`. */
export const JsonRpcNotification = lazySchema(() => z.object({
  jsonrpc: z.literal("2.0").optional(),
  method: z.string(),
  params: z.unknown().optional(),
  emittedAtMs: z.number().int().optional(),
}));
export type JsonRpcNotification = z.infer<typeof JsonRpcNotification>;

/** A successful response. */
export const JsonRpcResult = lazySchema(() => z.object({
  jsonrpc: z.literal("2.0").optional(),
  id: RequestId,
  result: z.unknown(),
}));

/** An error response; `id` is null when the request's id could not be read. */
export const JsonRpcErrorResponse = lazySchema(() => z.object({
  jsonrpc: z.literal("2.0").optional(),
  id: RequestId.nullable(),
  error: JsonRpcErrorObject,
}));

/** Any response, successful or not. */
export const JsonRpcResponse = lazySchema(() => z.union([JsonRpcResult, JsonRpcErrorResponse]));
export type JsonRpcResponse = z.infer<typeof JsonRpcResponse>;
