import * as z from "zod";
import { JsonRpcErrorResponse, JsonRpcNotification, JsonRpcRequest, JsonRpcResult } from "./jsonrpc.js";
import { clientNotifications, clientRequests, serverNotifications, serverRequests } from "./methods.js";

/** A JSON Schema document keyed by the file name it is written to. */
export type SchemaFiles = Map<string, object>;

/** A zod schema as the draft-07 JSON Schema of the file `title` names (the input form: defaults optional). */
export function toJsonSchema(schema: z.ZodType, title: string): object {
  return { title, ...z.toJSONSchema(schema, { target: "draft-07", io: "input", unrepresentable: "any" }) };
}

/**
 * JSON Schema for every message type in the registry, generated from the zod definitions:
 * `<Type>Params.json` / `<Type>Response.json` for requests in both directions, `<Type>.json` for
 * notifications, and the JSON-RPC envelope.
 */
export function generateJsonSchemas(): SchemaFiles {
  const files: SchemaFiles = new Map();
  const add = (name: string, schema: z.ZodType) => files.set(`${name}.json`, toJsonSchema(schema, name));
  for (const spec of [...Object.values(clientRequests), ...Object.values(serverRequests)]) {
    add(`${spec.typeName}Params`, spec.params);
    add(`${spec.typeName}Response`, spec.result);
  }
  for (const spec of [...Object.values(serverNotifications), ...Object.values(clientNotifications)]) {
    add(spec.typeName, spec.params);
  }
  add("JSONRPCRequest", JsonRpcRequest);
  add("JSONRPCNotification", JsonRpcNotification);
  add("JSONRPCResponse", JsonRpcResult);
  add("JSONRPCError", JsonRpcErrorResponse);
  return files;
}

/** Serializes a schema file the way it is checked in: two-space JSON with a final newline. */
export function renderSchemaFile(schema: object): string {
  return JSON.stringify(schema, null, 2) + "\n";
}
