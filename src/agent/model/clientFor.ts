import { chatClient } from "./chatWire.js";
import type { ModelClient } from "./modelClient.js";
import type { ProviderSettings } from "./providers.js";
import { responsesClient } from "./responsesWire.js";

/** The streaming client for a provider's `wire_api`. */
export function modelClientFor(provider: ProviderSettings): ModelClient {
  return provider.wireApi === "chat" ? chatClient(provider) : responsesClient(provider);
}
