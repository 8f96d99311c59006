import { chatClient } from "./chatWire.js";
import type { ModelClient } from "./modelClient.js";
import type { ProviderSettings } from "./providers.js";
import { responsesClient } from "./responsesWire.js";

/** Clients by provider settings: turns resolve their provider afresh, and most resolve the same one. */
const clients = new Map<string, ModelClient>();

/**
 * The streaming client for a provider's `wire_api`, one per distinct provider settings in the
 * process, so turns share its SDK client (parsed options, headers) instead of building one each.
 */
export function modelClientFor(provider: ProviderSettings): ModelClient {
  const key = JSON.stringify(provider);
  let client = clients.get(key);
  if (!client) {
    client = provider.wireApi === "chat" ? chatClient(provider) : responsesClient(provider);
    clients.set(key, client);
  }
  return client;
}
