import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** Params of `config/read`. */
export const ConfigReadParams = lazySchema(() => z.object({
  cwd: z.string().nullable().optional(),
  includeLayers: z.boolean().optional(),
}));
export type ConfigReadParams = z.infer<typeof ConfigReadParams>;

/** Where a config layer comes from. */
export const ConfigLayerSource = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("user"), file: z.string(), profile: z.string().nullable().optional() }),
  z.object({ type: z.literal("sessionFlags") }),
]));

/** A layer's identity: its source and a version that changes whenever its content does. */
export const ConfigLayerMetadata = lazySchema(() => z.object({ name: ConfigLayerSource, version: z.string() }));

/** One config layer with its own (unmerged) values. */
export const ConfigLayer = lazySchema(() => ConfigLayerMetadata.extend({
  config: z.record(z.string(), z.unknown()),
  disabledReason: z.string().nullable().optional(),
}));

/** Result of `config/read`: the effective config (snake_case keys, as in config.toml) and where each value came from. */
export const ConfigReadResponse = lazySchema(() => z.object({
  config: z.record(z.string(), z.unknown()),
  origins: z.record(z.string(), ConfigLayerMetadata),
  layers: z.array(ConfigLayer).nullable().optional(),
}));
export type ConfigReadResponse = z.infer<typeof ConfigReadResponse>;

/** Result of `configRequirements/read`: no administrator requirements are enforced by this server. */
export const ConfigRequirementsReadResponse = lazySchema(() => z.object({
  requirements: z.null(),
  supportsIndependentSpeedModes: z.boolean().nullable().optional(),
}));

/** How a written value combines with what is there: `upsert` merges tables. */
export const MergeStrategy = lazySchema(() => z.enum(["replace", "upsert"]));

/** One edit of `config.toml`: a dotted key path (quote segments with dots, e.g. `projects."/x".trust_level`). */
export const ConfigEdit = lazySchema(() => z.object({ keyPath: z.string().min(1), value: z.unknown(), mergeStrategy: MergeStrategy }));

/** Params of `config/value/write`. */
export const ConfigValueWriteParams = lazySchema(() => ConfigEdit.extend({
  filePath: z.string().nullable().optional(),
  expectedVersion: z.string().nullable().optional(),
}));

/** Params of `config/batchWrite`: every edit applies, or none. */
export const ConfigBatchWriteParams = lazySchema(() => z.object({
  edits: z.array(ConfigEdit),
  filePath: z.string().nullable().optional(),
  expectedVersion: z.string().nullable().optional(),
  reloadUserConfig: z.boolean().optional(),
}));

/** Result of a config write: the file's new version. */
export const ConfigWriteResponse = lazySchema(() => z.object({
  status: z.enum(["ok", "okOverridden"]),
  version: z.string(),
  filePath: z.string(),
  overriddenMetadata: z
    .object({ message: z.string(), overridingLayer: ConfigLayerMetadata, effectiveValue: z.unknown() })
    .nullable()
    .optional(),
}));

/** Params of `experimentalFeature/list`. */
export const ExperimentalFeatureListParams = lazySchema(() => z.object({
  cursor: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
  threadId: z.string().nullable().optional(),
}));

/** A feature flag and whether it is on now. */
export const ExperimentalFeature = lazySchema(() => z.object({
  name: z.string(),
  stage: z.enum(["beta", "underDevelopment", "stable", "deprecated", "removed"]),
  defaultEnabled: z.boolean(),
  enabled: z.boolean(),
  displayName: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  announcement: z.string().nullable().optional(),
}));

/** Result of `experimentalFeature/list`. */
export const ExperimentalFeatureListResponse = lazySchema(() => z.object({ data: z.array(ExperimentalFeature), nextCursor: z.string().nullable().optional() }));

/** Params and result of `experimentalFeature/enablement/set`: feature name → on or off, for the rest of the process. */
export const ExperimentalFeatureEnablementSetParams = lazySchema(() => z.object({ enablement: z.record(z.string(), z.boolean()) }));
export const ExperimentalFeatureEnablementSetResponse = lazySchema(() => z.object({ enablement: z.record(z.string(), z.boolean()) }));
