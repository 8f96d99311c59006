import * as z from "zod";
import * as accountMethods from "./accountMethods.js";
import * as approvals from "./approvals.js";
import * as attachmentMethods from "./attachmentMethods.js";
import * as autoReview from "./autoReview.js";
import * as backgroundTerminalMethods from "./backgroundTerminalMethods.js";
import * as clientTools from "./clientTools.js";
import * as commandExecMethods from "./commandExecMethods.js";
import * as configMethods from "./configMethods.js";
import * as externalAgentMethods from "./externalAgentMethods.js";
import * as feedbackMethods from "./feedbackMethods.js";
import * as fsMethods from "./fsMethods.js";
import * as goalMethods from "./goalMethods.js";
import * as initialize from "./initialize.js";
import * as items from "./items.js";
import * as jsonrpc from "./jsonrpc.js";
import * as mcpMethods from "./mcpMethods.js";
import { clientNotifications, clientRequests, serverNotifications, serverRequests } from "./methods.js";
import * as modelMethods from "./modelMethods.js";
import * as notifications from "./notifications.js";
import * as policy from "./policy.js";
import * as reviewMethods from "./reviewMethods.js";
import * as startupQuestionMethods from "./startupQuestionMethods.js";
import * as thread from "./thread.js";
import * as threadMethods from "./threadMethods.js";
import * as turn from "./turn.js";
import * as turnMethods from "./turnMethods.js";
import * as userInput from "./userInput.js";

const MODULES: readonly object[] = [
  accountMethods,
  approvals,
  attachmentMethods,
  autoReview,
  backgroundTerminalMethods,
  clientTools,
  commandExecMethods,
  configMethods,
  externalAgentMethods,
  feedbackMethods,
  fsMethods,
  goalMethods,
  initialize,
  items,
  jsonrpc,
  mcpMethods,
  modelMethods,
  notifications,
  policy,
  reviewMethods,
  startupQuestionMethods,
  thread,
  threadMethods,
  turn,
  turnMethods,
  userInput,
];

/** The JSON-RPC envelopes by the names of their schema files. */
const ENVELOPES: ReadonlyArray<readonly [string, z.ZodType]> = [
  ["JSONRPCRequest", jsonrpc.JsonRpcRequest],
  ["JSONRPCNotification", jsonrpc.JsonRpcNotification],
  ["JSONRPCResponse", jsonrpc.JsonRpcResult],
  ["JSONRPCError", jsonrpc.JsonRpcErrorResponse],
];

/** The protocol's type names: what the generated TypeScript declarations (src/protocol/types.ts) call each schema. */
export interface ProtocolNames {
  /**
   * One name per schema: every schema src/protocol exports, by its export name (`ThreadItem`,
   * `Turn`), then the message schemas defined inline in the registry, by message type name.
   */
  readonly types: ReadonlyMap<string, z.ZodType>;
  /** Further names of a schema that has one: message types (`ThreadArchiveParams` → `ThreadIdParams`), envelopes. */
  readonly aliases: ReadonlyMap<string, string>;
}

/**
 * Names every schema of the protocol, as {@link ProtocolNames}: exported schemas by their export
 * name; each message of the registry (methods.ts) by the name of its JSON Schema file
 * (`<Type>Params`, `<Type>Response`, notification `<Type>`). Throws if two schemas would share a name.
 */
export function protocolNames(): ProtocolNames {
  const types = new Map<string, z.ZodType>();
  const nameOf = new Map<z.ZodType, string>();
  const aliases = new Map<string, string>();
  const name = (typeName: string, schema: z.ZodType) => {
    const existing = nameOf.get(schema);
    if (existing !== undefined && (existing === typeName || aliases.get(typeName) === existing)) return;
    if (types.has(typeName) || aliases.has(typeName)) throw new Error(`two protocol schemas are named ${typeName}`);
    if (existing === undefined) {
      types.set(typeName, schema);
      nameOf.set(schema, typeName);
    } else aliases.set(typeName, existing);
  };
  for (const module of MODULES) {
    // Sorted: module namespaces list exports in that order under Node, not under every loader (vitest).
    for (const [key, value] of Object.entries(module).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (value instanceof z.ZodType) name(key, value);
    }
  }
  for (const spec of [...Object.values(clientRequests), ...Object.values(serverRequests)]) {
    name(`${spec.typeName}Params`, spec.params);
    name(`${spec.typeName}Response`, spec.result);
  }
  for (const spec of [...Object.values(serverNotifications), ...Object.values(clientNotifications)]) name(spec.typeName, spec.params);
  for (const [typeName, schema] of ENVELOPES) name(typeName, schema);
  return { types, aliases };
}
