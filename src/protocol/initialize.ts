import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** Who the client is; `name` becomes part of the user agent. */
export const ClientInfo = lazySchema(() => z.object({
  name: z.string(),
  title: z.string().nullable().optional(),
  version: z.string(),
}));

/** Capabilities a client declares once per connection. */
export const InitializeCapabilities = lazySchema(() => z.object({
  experimentalApi: z.boolean().optional(),
  optOutNotificationMethods: z.array(z.string()).nullable().optional(),
  requestAttestation: z.boolean().optional(),
  requiredHumanApproval: z.boolean().optional(),
  extensions: z.record(z.string(), z.unknown()).nullable().optional(),
  mcpServerOpenaiFormElicitation: z.boolean().optional(),
  explicitGatewayOauth: z.boolean().optional(),
}));

/** Params of `initialize`. */
export const InitializeParams = lazySchema(() => z.object({
  clientInfo: ClientInfo,
  capabilities: InitializeCapabilities.nullable().optional(),
}));
export type InitializeParams = z.infer<typeof InitializeParams>;

/** Result of `initialize`. */
export const InitializeResponse = lazySchema(() => z.object({
  userAgent: z.string(),
  codexHome: z.string(),
  platformFamily: z.string(),
  platformOs: z.string(),
}));
export type InitializeResponse = z.infer<typeof InitializeResponse>;
