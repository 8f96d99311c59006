import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** Params of `account/read`. */
export const GetAccountParams = lazySchema(() => z.object({ refreshToken: z.boolean().optional() }));

/**
 * Result of `account/read`: an API-key account once a client logged in with a key, else none.
 * Providers can take their keys from the environment, so clients need not show a login screen.
 */
export const GetAccountResponse = lazySchema(() => z.object({
  account: z.object({ type: z.literal("apiKey") }).nullable(),
  requiresOpenaiAuth: z.boolean(),
  userId: z.string().nullable().optional(),
  /** Which ChatGPT workspace requests go to; Codex sends it outside its published schema, null without a ChatGPT login. */
  workspaceRouting: z.unknown().nullable().optional(),
}));

/** Result of `account/bedrock/checkGovCloudRequirements` (experimental; the Codex TUI waits for it at start-up). */
export const GovCloudRequirementsResponse = lazySchema(() => z.object({ isGovCloud: z.boolean(), shouldWarn: z.boolean() }));

/** Params of `hooks/list`. */
export const HooksListParams = lazySchema(() => z.object({
  cwds: z.array(z.string()).optional(),
  threadId: z.string().nullable().optional(),
}));

/** Result of `hooks/list`: one entry per cwd asked about. */
export const HooksListResponse = lazySchema(() => z.object({
  data: z.array(
    z.object({
      cwd: z.string(),
      hooks: z.array(z.unknown()),
      errors: z.array(z.object({ message: z.string(), path: z.string() })),
      warnings: z.array(z.string()),
    }),
  ),
}));

/** Params of `skills/list`. */
export const SkillsListParams = lazySchema(() => z.object({
  cwds: z.array(z.string()).optional(),
  forceReload: z.boolean().optional(),
}));

/** A skill as `skills/list` shows it. */
export const SkillMetadata = lazySchema(() => z.object({
  name: z.string(),
  description: z.string(),
  path: z.string(),
  scope: z.enum(["user", "repo", "system", "admin"]),
  enabled: z.boolean(),
}));

/** Result of `skills/list`: one entry per cwd asked about, with the SKILL.md files that could not be read. */
export const SkillsListResponse = lazySchema(() => z.object({
  data: z.array(z.object({ cwd: z.string(), skills: z.array(SkillMetadata), errors: z.array(z.object({ path: z.string(), message: z.string() })) })),
}));

/** Params of `skills/config/write`: a skill (by SKILL.md path or by name) switched on or off in config.toml. */
export const SkillsConfigWriteParams = lazySchema(() => z.object({ enabled: z.boolean(), name: z.string().nullable().optional(), path: z.string().nullable().optional() }));

/** Result of `skills/config/write`. */
export const SkillsConfigWriteResponse = lazySchema(() => z.object({ effectiveEnabled: z.boolean() }));

/** Params of `skills/extraRoots/set`: more directories to find skills in, for the rest of the process. */
export const SkillsExtraRootsSetParams = lazySchema(() => z.object({ extraRoots: z.array(z.string()) }));

/** Params of `plugin/installed`. */
export const PluginInstalledParams = lazySchema(() => z.object({
  cwds: z.array(z.string()).nullable().optional(),
  installSuggestionPluginNames: z.array(z.string()).nullable().optional(),
}));

/** Result of `plugin/installed`. */
export const PluginInstalledResponse = lazySchema(() => z.object({
  marketplaces: z.array(z.unknown()),
  marketplaceLoadErrors: z.array(z.unknown()).optional(),
}));

/** A collaboration mode a client can pick (`settings` keys are snake_case on the wire). */
export const CollaborationModeMask = lazySchema(() => z.object({
  name: z.string(),
  mode: z.enum(["default", "plan"]).nullable().optional(),
  model: z.string().nullable().optional(),
  reasoning_effort: z.string().nullable().optional(),
}));

/** Result of `collaborationMode/list` (experimental). */
export const CollaborationModeListResponse = lazySchema(() => z.object({ data: z.array(CollaborationModeMask) }));
