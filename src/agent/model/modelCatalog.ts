import type { Config } from "../../config/schema.js";
import type { Model } from "../../protocol/modelMethods.js";
import { resolveProvider, type ProviderSettings } from "./providers.js";

/** How long `model/list` waits for a provider's model list before answering from config alone. */
const LIST_TIMEOUT_MS = 3_000;

const EFFORTS = [
  { reasoningEffort: "low", description: "Fast responses with lighter reasoning" },
  { reasoningEffort: "medium", description: "Balances speed and reasoning depth for everyday tasks" },
  { reasoningEffort: "high", description: "Greater reasoning depth for complex problems" },
] as const;

/**
 * The models a client can pick for `providerId`: what the provider's `GET /models` lists (for
 * OpenAI-compatible providers), plus the configured model, which is the one default. A provider
 * that is unreachable, slow or unauthenticated leaves just the configured model.
 */
export async function listModels(config: Config, providerId: string, defaultModel: string, env: NodeJS.ProcessEnv): Promise<Model[]> {
  const listed = await providerModelIds(config, providerId, env);
  const ids = [defaultModel, ...listed.filter((id) => id !== defaultModel)];
  const effort = config.model_reasoning_effort ?? "medium";
  return ids.map((id) => ({
    id,
    model: id,
    displayName: displayName(id),
    description: id === defaultModel ? `${displayName(id)} (configured)` : `${displayName(id)} from ${providerId}`,
    hidden: false,
    isDefault: id === defaultModel,
    supportedReasoningEfforts: [...EFFORTS],
    defaultReasoningEffort: effort,
    inputModalities: ["text", "image"],
    supportsPersonality: false,
    upgrade: null,
  }));
}

async function providerModelIds(config: Config, providerId: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  let provider: ProviderSettings;
  try {
    provider = resolveProvider(config, providerId, env);
  } catch {
    return [];
  }
  const url = new URL(`${provider.baseUrl.replace(/\/+$/, "")}/models`);
  for (const [key, value] of Object.entries(provider.query)) url.searchParams.set(key, value);
  const headers: Record<string, string> = { ...provider.headers };
  if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
    if (!response.ok) return [];
    const body = (await response.json()) as { data?: unknown };
    if (!Array.isArray(body.data)) return [];
    return body.data
      .map((entry) => (typeof entry === "object" && entry !== null ? (entry as { id?: unknown }).id : undefined))
      .filter((id): id is string => typeof id === "string" && id.length > 0)
      .sort();
  } catch {
    return [];
  }
}

/** `gpt-5.5` → `GPT-5.5`, as Codex's pickers show OpenAI models; other ids are shown as they are. */
function displayName(id: string): string {
  return id.startsWith("gpt-") ? `GPT-${id.slice(4)}` : id;
}
