import path from "node:path";
import { applyOverride } from "../config/overrides.js";
import { Config } from "../config/schema.js";
import { invalidRequest } from "../protocol/errors.js";
import type { SandboxMode, SandboxPolicy } from "../protocol/policy.js";
import type { ThreadStartParams } from "../protocol/threadMethods.js";
import type { TurnStartParams } from "../protocol/turnMethods.js";
import type { ThreadSettings } from "./records.js";

/** Model used when neither the client nor the config names one. */
export const DEFAULT_MODEL = "gpt-5.5";
/** Provider used when neither the client nor the config names one. */
export const DEFAULT_MODEL_PROVIDER = "openai";
/** Sandbox used when neither the client nor the config names one. */
export const DEFAULT_SANDBOX_MODE: SandboxMode = "read-only";

/** Overrides a client may send with thread/start, thread/resume and thread/fork. */
export type SettingsOverrides = Pick<
  ThreadStartParams,
  | "model"
  | "modelProvider"
  | "serviceTier"
  | "cwd"
  | "approvalPolicy"
  | "approvalsReviewer"
  | "sandbox"
  | "config"
  | "baseInstructions"
  | "developerInstructions"
>;

/** The settings a new thread starts with: client params over per-thread config over config.toml. */
export function resolveSettings(config: Config, params: SettingsOverrides, serverCwd: string): ThreadSettings {
  const effective = withConfigOverrides(config, params.config);
  return {
    model: params.model ?? effective.model ?? DEFAULT_MODEL,
    modelProvider: params.modelProvider ?? effective.model_provider ?? DEFAULT_MODEL_PROVIDER,
    cwd: path.resolve(serverCwd, params.cwd ?? "."),
    approvalPolicy: params.approvalPolicy ?? effective.approval_policy ?? "on-request",
    approvalsReviewer: params.approvalsReviewer ?? "user",
    sandbox: sandboxPolicy(params.sandbox ?? effective.sandbox_mode ?? DEFAULT_SANDBOX_MODE, effective),
    reasoningEffort: effective.model_reasoning_effort ?? null,
    reasoningSummary: effective.model_reasoning_summary ?? null,
    serviceTier: params.serviceTier ?? null,
    baseInstructions: params.baseInstructions ?? effective.instructions ?? null,
    developerInstructions: params.developerInstructions ?? effective.developer_instructions ?? null,
  };
}

/** The settings of an existing thread after a resume or fork with overrides. */
export function overrideSettings(
  current: ThreadSettings,
  config: Config,
  params: SettingsOverrides,
  serverCwd: string,
): ThreadSettings {
  const effective = withConfigOverrides(config, params.config);
  const next: ThreadSettings = { ...current };
  if (params.model) next.model = params.model;
  if (params.modelProvider) next.modelProvider = params.modelProvider;
  if (params.cwd) next.cwd = path.resolve(serverCwd, params.cwd);
  if (params.approvalPolicy) next.approvalPolicy = params.approvalPolicy;
  if (params.approvalsReviewer) next.approvalsReviewer = params.approvalsReviewer;
  if (params.sandbox) next.sandbox = sandboxPolicy(params.sandbox, effective);
  if (params.serviceTier) next.serviceTier = params.serviceTier;
  if (params.baseInstructions) next.baseInstructions = params.baseInstructions;
  if (params.developerInstructions) next.developerInstructions = params.developerInstructions;
  return next;
}

/** The settings after `turn/start`'s overrides, which persist for later turns. */
export function turnOverrides(current: ThreadSettings, params: TurnStartParams, serverCwd: string): ThreadSettings {
  const next: ThreadSettings = { ...current };
  if (params.cwd) next.cwd = path.resolve(serverCwd, params.cwd);
  if (params.approvalPolicy) next.approvalPolicy = params.approvalPolicy;
  if (params.approvalsReviewer) next.approvalsReviewer = params.approvalsReviewer;
  if (params.sandboxPolicy) next.sandbox = params.sandboxPolicy;
  if (params.model) next.model = params.model;
  if (params.effort) next.reasoningEffort = params.effort;
  if (params.summary) next.reasoningSummary = params.summary;
  if (params.serviceTier) next.serviceTier = params.serviceTier;
  return next;
}

/** The sandbox policy a `sandbox_mode` stands for, with `[sandbox_workspace_write]` applied. */
export function sandboxPolicy(mode: SandboxMode, config: Config): SandboxPolicy {
  switch (mode) {
    case "read-only":
      return { type: "readOnly" };
    case "danger-full-access":
      return { type: "dangerFullAccess" };
    case "workspace-write": {
      const table = config.sandbox_workspace_write ?? {};
      return {
        type: "workspaceWrite",
        writableRoots: table.writable_roots ?? [],
        networkAccess: table.network_access ?? false,
        excludeTmpdirEnvVar: table.exclude_tmpdir_env_var ?? false,
        excludeSlashTmp: table.exclude_slash_tmp ?? false,
      };
    }
  }
}

function withConfigOverrides(config: Config, overrides: Record<string, unknown> | null | undefined): Config {
  if (!overrides || Object.keys(overrides).length === 0) return config;
  const merged = structuredClone(config) as Record<string, unknown>;
  for (const [key, value] of Object.entries(overrides)) {
    applyOverride(merged, { path: key.split("."), value, source: `${key}=${JSON.stringify(value)}` });
  }
  const parsed = Config.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidRequest(`invalid config override \`${issue.path.join(".")}\`: ${issue.message}`);
  }
  return parsed.data;
}
