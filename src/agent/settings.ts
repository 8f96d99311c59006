/**
 * The agent's front door for settings: the one shape a turn runs with, and the one function that
 * computes it from the current config, a thread's stored settings and a request's overrides. It is
 * the only place that defaults the model, provider, approvals, reviewer, sandbox, cwd and
 * environment; thread/start, resume, fork, turn/start, command/exec and model/list all use it.
 */
import path from "node:path";
import * as z from "zod";
import { lazySchema } from "../protocol/lazySchema.js";
import { applyOverride } from "../config/overrides.js";
import { Config } from "../config/schema.js";
import { invalidRequest } from "../protocol/errors.js";
import { providerForModel } from "./model/providers.js";
import { ApprovalsReviewer, AskForApproval, PROFILE_SANDBOX_MODE, SandboxPolicy, type PermissionProfileId, type SandboxMode } from "../protocol/policy.js";
import type { ThreadStartParams } from "../protocol/threadMethods.js";
import type { TurnStartParams } from "../protocol/turnMethods.js";

/** The settings a thread's turns run with, as stored in its file (later `settings` records override them). */
export const TurnSettings = lazySchema(() => z.object({
  model: z.string(),
  modelProvider: z.string(),
  cwd: z.string(),
  approvalPolicy: AskForApproval,
  approvalsReviewer: ApprovalsReviewer,
  sandbox: SandboxPolicy,
  reasoningEffort: z.string().nullable().optional(),
  reasoningSummary: z.string().nullable().optional(),
  serviceTier: z.string().nullable().optional(),
  baseInstructions: z.string().nullable().optional(),
  developerInstructions: z.string().nullable().optional(),
}));
export type TurnSettings = z.infer<typeof TurnSettings>;

/**
 * What one request asks to change, whatever method carried it: thread/start, resume and fork name
 * a `sandbox` mode and may carry per-thread `config`; turn/start and command/exec a sandbox policy.
 */
export interface SettingsRequest {
  readonly model?: string | null;
  readonly modelProvider?: string | null;
  readonly serviceTier?: string | null;
  readonly cwd?: string | null;
  readonly approvalPolicy?: AskForApproval | null;
  readonly approvalsReviewer?: ApprovalsReviewer | null;
  readonly sandboxMode?: SandboxMode | null;
  /** Wins over `sandboxMode`. */
  readonly sandboxPolicy?: SandboxPolicy | null;
  readonly reasoningEffort?: string | null;
  readonly reasoningSummary?: string | null;
  readonly baseInstructions?: string | null;
  readonly developerInstructions?: string | null;
  /** Config keys (dotted) over the server's config, for this request only. */
  readonly config?: Record<string, unknown> | null;
}

/** The settings thread/start, thread/resume and thread/fork may carry. */
type ThreadSettingsParams = Pick<
  ThreadStartParams,
  "model" | "modelProvider" | "serviceTier" | "cwd" | "approvalPolicy" | "approvalsReviewer" | "sandbox" | "permissions" | "config" | "baseInstructions" | "developerInstructions"
>;

/** Where the server runs: relative cwds resolve against `cwd`; turns, commands and MCP servers see `env`. */
export interface Host {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** The host an embedder's options describe; the process's own cwd and environment by default. */
export function hostOf(options: { readonly cwd?: string; readonly env?: NodeJS.ProcessEnv }): Host {
  return { cwd: options.cwd ?? process.cwd(), env: options.env ?? process.env };
}

const DEFAULT_MODEL = "gpt-5.5";
const DEFAULT_SANDBOX_MODE: SandboxMode = "read-only";
const DEFAULT_APPROVAL_POLICY: AskForApproval = "on-request";
const DEFAULT_APPROVALS_REVIEWER: ApprovalsReviewer = "user";

/**
 * The effective settings: `stored` (a thread's) with the request's overrides, or for a new thread
 * (`stored` null) the request over the config (with the request's `config` on top) over defaults.
 * A stored thread keeps what the request leaves out; empty strings change nothing.
 */
export function effectiveSettings(config: Config, stored: TurnSettings | null, request: SettingsRequest, host: Host): TurnSettings {
  const effective = withConfigOverrides(config, request.config);
  const base = stored ?? {
    model: effective.model ?? DEFAULT_MODEL,
    modelProvider: effective.model_provider ?? providerForModel(effective.model ?? DEFAULT_MODEL),
    cwd: path.resolve(host.cwd),
    approvalPolicy: effective.approval_policy ?? DEFAULT_APPROVAL_POLICY,
    approvalsReviewer: effective.approvals_reviewer ?? DEFAULT_APPROVALS_REVIEWER,
    sandbox: sandboxPolicy(effective.sandbox_mode ?? DEFAULT_SANDBOX_MODE, effective),
    reasoningEffort: effective.model_reasoning_effort ?? null,
    reasoningSummary: effective.model_reasoning_summary ?? null,
    serviceTier: null,
    baseInstructions: effective.instructions ?? null,
    developerInstructions: effective.developer_instructions ?? null,
  };
  const next: TurnSettings = { ...base };
  if (request.model) {
    // With no provider chosen anywhere, the provider follows the model (`claude-*`: Anthropic's):
    // a provider that was only implied by the old model is implied again by the new one.
    const implied = effective.model_provider === undefined && base.modelProvider === providerForModel(base.model);
    next.model = request.model;
    if (implied) next.modelProvider = providerForModel(request.model);
  }
  if (request.modelProvider) next.modelProvider = request.modelProvider;
  if (request.cwd) next.cwd = path.resolve(host.cwd, request.cwd);
  if (request.approvalPolicy) next.approvalPolicy = request.approvalPolicy;
  if (request.approvalsReviewer) next.approvalsReviewer = request.approvalsReviewer;
  if (request.sandboxPolicy) next.sandbox = withDefaults(request.sandboxPolicy);
  else if (request.sandboxMode) next.sandbox = sandboxPolicy(request.sandboxMode, effective);
  if (request.reasoningEffort) next.reasoningEffort = request.reasoningEffort;
  if (request.reasoningSummary) next.reasoningSummary = request.reasoningSummary;
  if (request.serviceTier) next.serviceTier = request.serviceTier;
  if (request.baseInstructions) next.baseInstructions = request.baseInstructions;
  if (request.developerInstructions) next.developerInstructions = request.developerInstructions;
  return next;
}

/** What thread/start, thread/resume and thread/fork ask to change. */
export function threadSettingsRequest(params: ThreadSettingsParams): SettingsRequest {
  return { ...params, sandboxMode: params.sandbox ?? profileSandboxMode(params.permissions) };
}

/** What turn/start asks to change (kept for the thread's later turns). */
export function turnSettingsRequest(params: TurnStartParams): SettingsRequest {
  const { cwd, approvalPolicy, approvalsReviewer, sandboxPolicy, permissions, model, effort, summary, serviceTier } = params;
  return { cwd, approvalPolicy, approvalsReviewer, sandboxPolicy, sandboxMode: profileSandboxMode(permissions), model, reasoningEffort: effort, reasoningSummary: summary, serviceTier };
}

/** The sandbox mode a built-in permission profile stands for (none given: undefined). */
export function profileSandboxMode(profile: PermissionProfileId | null | undefined): SandboxMode | undefined {
  return profile ? PROFILE_SANDBOX_MODE[profile] : undefined;
}

/** A client's sandbox policy with Codex's defaults filled in, so it is reported (and compared) whole. */
function withDefaults(policy: SandboxPolicy): SandboxPolicy {
  switch (policy.type) {
    case "readOnly":
      return { ...policy, networkAccess: policy.networkAccess ?? false };
    case "workspaceWrite":
      return {
        ...policy,
        writableRoots: policy.writableRoots ?? [],
        networkAccess: policy.networkAccess ?? false,
        excludeTmpdirEnvVar: policy.excludeTmpdirEnvVar ?? false,
        excludeSlashTmp: policy.excludeSlashTmp ?? false,
      };
    default:
      return policy;
  }
}

/** The sandbox policy a `sandbox_mode` stands for, with `[sandbox_workspace_write]` applied. */
function sandboxPolicy(mode: SandboxMode, config: Config): SandboxPolicy {
  switch (mode) {
    case "read-only":
      return { type: "readOnly", networkAccess: false };
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
