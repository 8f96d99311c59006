/**
 * The protocol for TypeScript consumers (`agent-app-server/protocol`): the wire type of every
 * message and named shape (`ThreadItem`, `Thread`, `Turn`, `TurnStartParams`,
 * `ItemCompletedNotification`, …, generated into ./types.ts from the zod schemas), method maps and
 * helpers, and the zod schemas for those who validate what they receive.
 *
 * The schemas are declared as `z.ZodType<WireType>` rather than by their zod construction, so
 * type-checking a consumer does not expand hundreds of nested zod generics;
 * test/conformance/protocolTypes.test.ts checks that each schema's output is its wire type and each
 * wire type is accepted by its schema.
 */
import type * as z from "zod";
import * as registry from "./methods.js";
import { protocolNames } from "./names.js";
import type {
  ClientNotificationMethod,
  ClientNotifications,
  ClientRequestMethod,
  ClientRequests,
  ProtocolTypes,
  ServerNotificationMethod,
  ServerNotifications,
  ServerRequestMethod,
  ServerRequests,
} from "./types.js";

export type * from "./types.js";

/** The zod schemas of a request method: `params.parse(…)` and `result.parse(…)` give its wire types. */
export interface RequestSchemas<E extends { params: unknown; result: unknown }> {
  /** The type name: `<typeName>Params`, `<typeName>Response`. */
  readonly typeName: string;
  readonly params: z.ZodType<E["params"]>;
  readonly result: z.ZodType<E["result"]>;
}

/** The zod schema of a notification method's params. */
export interface NotificationSchemas<P> {
  /** The type name of its params. */
  readonly typeName: string;
  readonly params: z.ZodType<P>;
}

/** Client → server requests: zod schemas of each method's params and result. */
export type ClientRequestSchemas = { readonly [M in ClientRequestMethod]: RequestSchemas<ClientRequests[M]> };
/** Server → client requests: zod schemas of each method's params and result. */
export type ServerRequestSchemas = { readonly [M in ServerRequestMethod]: RequestSchemas<ServerRequests[M]> };
/** Server → client notifications: the zod schema of each method's params. */
export type ServerNotificationSchemas = { readonly [M in ServerNotificationMethod]: NotificationSchemas<ServerNotifications[M]> };
/** Client → server notifications: the zod schema of each method's params. */
export type ClientNotificationSchemas = { readonly [M in ClientNotificationMethod]: NotificationSchemas<ClientNotifications[M]> };
/** Every type of ./types.ts by name, as a zod schema. */
export type ProtocolSchemas = { readonly [K in keyof ProtocolTypes]: z.ZodType<ProtocolTypes[K]> };

// Declared, not inferred: the registry's own types are the nested zod generics consumers should not pay for.
/** Client → server requests by method: `clientRequests["turn/start"].params.parse(value)`. */
export const clientRequests = registry.clientRequests as unknown as ClientRequestSchemas;
/** Server → client requests by method: `serverRequests["item/tool/call"].params.parse(value)`. */
export const serverRequests = registry.serverRequests as unknown as ServerRequestSchemas;
/** Server → client notifications by method: `serverNotifications["item/completed"].params.parse(value)`. */
export const serverNotifications = registry.serverNotifications as unknown as ServerNotificationSchemas;
/** Client → server notifications by method. */
export const clientNotifications = registry.clientNotifications as unknown as ClientNotificationSchemas;

/** Every type of ./types.ts by name, as a zod schema: `schemas.ThreadItem.parse(value)`. */
export const schemas: ProtocolSchemas = (() => {
  const { types, aliases } = protocolNames();
  const byName: Record<string, z.ZodType> = Object.fromEntries(types);
  for (const [alias, name] of aliases) byName[alias] = types.get(name)!;
  return byName as unknown as ProtocolSchemas;
})();
