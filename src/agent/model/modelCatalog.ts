import { createHash } from "node:crypto";
import type { Config } from "../../config/schema.js";
import type { Model } from "../../protocol/modelMethods.js";
import type { Logger } from "../../runtime/logger.js";
import { ModelListCache } from "./modelListCache.js";
import { fetchModelList, modelNamed, type ListedModel } from "./modelLists.js";
import { resolveProvider, type ProviderSettings } from "./providers.js";

/** How long `model/list` waits for a provider's model list (all its pages) before answering from config alone. */
const LIST_TIMEOUT_MS = 3_000;

const EFFORTS = [
  { reasoningEffort: "low", description: "Fast responses with lighter reasoning" },
  { reasoningEffort: "medium", description: "Balances speed and reasoning depth for everyday tasks" },
  { reasoningEffort: "high", description: "Greater reasoning depth for complex problems" },
] as const;

// The Anthropic wire gives each of these a thinking budget, xhigh the largest.
const ANTHROPIC_EFFORTS = [...EFFORTS, { reasoningEffort: "xhigh", description: "Extra high reasoning depth for the hardest problems" }] as const;

// One per process: listings are keyed by everything that decides them, so servers can share them.
const listings = new ModelListCache<ListedModel[]>();

/**
 * The models a client can pick for `providerId`: the chat models the provider's own list names
 * (in its wire's way; see {@link fetchModelList}), after the configured model, which is the one
 * default. Lists are reused for a minute. A provider that is unreachable, slow or refuses leaves
 * just the configured model, with a warning in the log.
 */
export async function listModels(config: Config, providerId: string, defaultModel: string, env: NodeJS.ProcessEnv, logger: Logger): Promise<Model[]> {
  let provider: ProviderSettings | null = null;
  let listed: ListedModel[] = [];
  try {
    const resolved = resolveProvider(config, providerId, env);
    provider = resolved;
    listed = await listings.get(cacheKey(resolved), () => fetchModelList(resolved, AbortSignal.timeout(LIST_TIMEOUT_MS)));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn({ modelProvider: providerId, reason }, "could not list the provider's models; model/list offers the configured model alone");
  }
  const configured = listed.find((model) => model.id === defaultModel);
  const others = listed.filter((model) => model.id !== defaultModel);
  const efforts = provider?.wireApi === "anthropic" ? ANTHROPIC_EFFORTS : EFFORTS;
  const effort = config.model_reasoning_effort ?? "medium";
  return [configured ?? modelNamed(defaultModel), ...others].map((model) => {
    const isDefault = model.id === defaultModel;
    const name = model.displayName ?? displayName(model.id);
    const about = isDefault ? `${name} (configured)` : (model.description ?? `${name} from ${provider?.name ?? providerId}`);
    // Every field Codex sends, in its order: what a provider does not say is null or empty, as
    // Codex's catalogue has it for a model without that metadata.
    return {
      id: model.id,
      model: model.id,
      upgrade: null,
      upgradeInfo: null,
      availabilityNux: null,
      displayName: name,
      description: model.contextWindow ? `${sentence(about)} Context window: ${tokens(model.contextWindow)} tokens.` : about,
      modelSpecialty: null,
      hidden: model.hidden && !isDefault,
      supportedReasoningEfforts: [...efforts],
      defaultReasoningEffort: effort,
      inputModalities: [...(model.inputModalities ?? ["text", "image"])],
      supportsPersonality: false,
      multiAgentVersion: null,
      additionalSpeedTiers: [],
      serviceTiers: [],
      defaultServiceTier: null,
      availableAccessPrograms: null,
      isDefault,
    };
  });
}

/** Everything a listing depends on, the key as a digest so it does not sit in memory as text. */
function cacheKey(provider: ProviderSettings): string {
  const { wireApi, baseUrl, apiKey, headers, query } = provider;
  return createHash("sha256").update(JSON.stringify([wireApi, baseUrl, apiKey, headers, query])).digest("hex");
}

/** `gpt-5.5` → `GPT-5.5`, as Codex's pickers show OpenAI models; other ids are shown as they are. */
function displayName(id: string): string {
  return id.startsWith("gpt-") ? `GPT-${id.slice(4)}` : id;
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** `200000` → `200K`, `1048576` → `1M`: how pickers show a context window. */
function tokens(count: number): string {
  if (count >= 1_000_000) return `${Number((count / 1_000_000).toFixed(1))}M`;
  if (count >= 1_000) return `${Math.round(count / 1_000)}K`;
  return String(count);
}
