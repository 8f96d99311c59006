import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** Params of `model/list`. */
export const ModelListParams = lazySchema(() => z.object({
  cursor: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
  includeHidden: z.boolean().nullable().optional(),
  modelProvider: z.string().nullable().optional(),
}));
export type ModelListParams = z.infer<typeof ModelListParams>;

/** A reasoning effort a model supports, with a line a picker can show. */
export const ReasoningEffortOption = lazySchema(() => z.object({ reasoningEffort: z.string(), description: z.string() }));

/** The model a listed one is to be replaced by, and how a client may say so. */
export const ModelUpgradeInfo = lazySchema(() => z.object({
  model: z.string(),
  upgradeCopy: z.string().nullable().optional(),
  modelLink: z.string().nullable().optional(),
  migrationMarkdown: z.string().nullable().optional(),
  retirementAt: z.number().int().nullable().optional(),
}));

/** A service tier a model offers (Codex's "Fast"). */
export const ModelServiceTier = lazySchema(() => z.object({ id: z.string(), name: z.string(), description: z.string() }));

/** One model a client can pick, with Codex's fields in Codex's order. */
export const Model = lazySchema(() => z.object({
  id: z.string(),
  model: z.string(),
  upgrade: z.string().nullable().optional(),
  upgradeInfo: ModelUpgradeInfo.nullable().optional(),
  availabilityNux: z.object({ message: z.string() }).nullable().optional(),
  displayName: z.string(),
  description: z.string(),
  modelSpecialty: z.string().nullable().optional(),
  hidden: z.boolean(),
  supportedReasoningEfforts: z.array(ReasoningEffortOption),
  defaultReasoningEffort: z.string(),
  inputModalities: z.array(z.enum(["text", "image", "audio"])).optional(),
  supportsPersonality: z.boolean().optional(),
  multiAgentVersion: z.enum(["disabled", "v1", "v2"]).nullable().optional(),
  additionalSpeedTiers: z.array(z.string()).optional(),
  serviceTiers: z.array(ModelServiceTier).optional(),
  defaultServiceTier: z.string().nullable().optional(),
  availableAccessPrograms: z.object({ cyber: z.array(z.string()) }).nullable().optional(),
  isDefault: z.boolean(),
}));
export type Model = z.infer<typeof Model>;

/** A page of models. */
export const ModelListResponse = lazySchema(() => z.object({ data: z.array(Model), nextCursor: z.string().nullable().optional() }));

/** How a provider authenticates: nothing, or an API key from an environment variable. */
export const GatewayAuth = lazySchema(() => z.union([
  z.object({ mode: z.literal("none") }),
  z.object({ mode: z.literal("environmentVariable"), envKey: z.string() }),
  z.object({ mode: z.literal("externallyConfigured"), envKey: z.string().nullable().optional() }),
]));

/** What kind of provider it is: OpenAI's own, or an OpenAI-compatible gateway. */
export const ProviderSettings = lazySchema(() => z.union([
  z.object({ type: z.literal("openai") }),
  z.object({ type: z.literal("customGateway"), auth: GatewayAuth }),
]));

/** A model provider a thread can use. */
export const ModelProviderSummary = lazySchema(() => z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string().nullable().optional(),
  canEdit: z.boolean(),
  settings: ProviderSettings,
}));

/** Result of `modelProvider/list`. */
export const ModelProviderListResponse = lazySchema(() => z.object({ data: z.array(ModelProviderSummary), defaultProviderId: z.string(), canChangeDefault: z.boolean() }));

/** Result of `modelProvider/capabilities/read`: the built-in tools beyond the agent's own this server offers. */
export const ModelProviderCapabilitiesReadResponse = lazySchema(() => z.object({ imageGeneration: z.boolean(), webSearch: z.boolean() }));

/** Params of `modelProvider/config/write`: an OpenAI-compatible gateway's settings (omitted fields keep theirs; `providerId` null or omitted: a new provider). */
export const ModelProviderConfigWriteParams = lazySchema(() => z.strictObject({
  settings: z.union([
    z.strictObject({
      type: z.literal("customGateway"),
      providerId: z.string().nullable().optional(),
      name: z.string().min(1).optional(),
      baseUrl: z.string().nullable().optional(),
      envKey: z.string().nullable().optional(),
    }),
    z.object({ type: z.enum(["bedrock", "gcp"]) }).loose(),
  ]),
}));

/** Result of `modelProvider/config/write`: the provider as it is now. */
export const ModelProviderConfigWriteResponse = lazySchema(() => z.object({ provider: ModelProviderSummary }));
