import { anthropicClient } from "./anthropicWire.js";
import { chatClient } from "./chatWire.js";
import { geminiClient } from "./geminiWire.js";
import type { ModelClient } from "./modelClient.js";
import type { ProviderSettings, WireApi } from "./providers.js";
import { responsesClient } from "./responsesWire.js";

/** Clients by provider settings: turns resolve their provider afresh, and most resolve the same one. */
const clients = new Map<string, ModelClient>();

const WIRES: Record<WireApi, (provider: ProviderSettings) => ModelClient> = {
  responses: responsesClient,
  chat: chatClient,
  anthropic: anthropicClient,
  gemini: geminiClient,
};

/**
 * The streaming client for a provider's `wire_api`, one per distinct provider settings in the
 * process, so turns share its SDK client (parsed options, headers) instead of building one each.
 */
export function modelClientFor(provider: ProviderSettings): ModelClient {
  const key = JSON.stringify(provider);
  let client = clients.get(key);
  if (!client) {
    client = WIRES[provider.wireApi](provider);
    clients.set(key, client);
  }
  return client;
}
