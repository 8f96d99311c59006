import * as z from "zod";
import { lazySchema } from "../protocol/lazySchema.js";
import { ApprovalsReviewer, AskForApprovalInput, ReasoningSummary, SandboxMode } from "../protocol/policy.js";

/** A `[model_providers.<id>]` table, with Codex's keys. */
export const ModelProviderConfig = lazySchema(() => z.looseObject({
  name: z.string().optional(),
  base_url: z.string().optional(),
  env_key: z.string().optional(),
  wire_api: z.enum(["responses", "chat", "anthropic", "gemini"]).optional(),
  query_params: z.record(z.string(), z.string()).optional(),
  http_headers: z.record(z.string(), z.string()).optional(),
  env_http_headers: z.record(z.string(), z.string()).optional(),
  request_max_retries: z.number().int().nonnegative().optional(),
  stream_max_retries: z.number().int().nonnegative().optional(),
  stream_idle_timeout_ms: z.number().int().positive().optional(),
  requires_openai_auth: z.boolean().optional(),
}));

/** `[sandbox_workspace_write]`: what the workspace-write sandbox may touch. */
export const SandboxWorkspaceWriteConfig = lazySchema(() => z.looseObject({
  writable_roots: z.array(z.string()).optional(),
  network_access: z.boolean().optional(),
  exclude_tmpdir_env_var: z.boolean().optional(),
  exclude_slash_tmp: z.boolean().optional(),
}));

/** `[shell_environment_policy]`: which environment variables commands get. */
export const ShellEnvironmentPolicyConfig = lazySchema(() => z.looseObject({
  inherit: z.enum(["all", "core", "none"]).optional(),
  ignore_default_excludes: z.boolean().optional(),
  exclude: z.array(z.string()).optional(),
  include_only: z.array(z.string()).optional(),
  set: z.record(z.string(), z.string()).optional(),
}));

/** A `[mcp_servers.<name>]` table: a stdio command or a streamable HTTP url. */
export const McpServerConfig = lazySchema(() => z.looseObject({
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Variables passed through from the server's environment, by name. */
  env_vars: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  url: z.string().optional(),
  bearer_token_env_var: z.string().optional(),
  /** Headers sent with every request to an HTTP server. */
  http_headers: z.record(z.string(), z.string()).optional(),
  enabled: z.boolean().optional(),
  startup_timeout_sec: z.number().positive().optional(),
  tool_timeout_sec: z.number().positive().optional(),
}));
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** What a matching rule decides: run without asking, refuse without asking, or always ask. */
export const RuleAction = lazySchema(() => z.enum(["allow", "deny", "ask"]));
export type RuleAction = z.infer<typeof RuleAction>;

/**
 * One `[[approval_rules]]` entry: an action and exactly one matcher — `command` (an argv prefix,
 * like Codex's exec-policy `prefix_rule`), `command_regex` (anchored, over a simple command's text)
 * or `path` (a glob over a patch's paths, relative to the thread's cwd).
 */
export const ApprovalRule = lazySchema(() => z
  .object({
    action: RuleAction,
    command: z.array(z.string()).min(1).optional(),
    command_regex: z.string().optional(),
    path: z.string().min(1).optional(),
    description: z.string().optional(),
  })
  .superRefine((rule, context) => {
    const matchers = [rule.command, rule.command_regex, rule.path].filter((matcher) => matcher !== undefined).length;
    if (matchers !== 1) context.addIssue({ code: "custom", message: "an approval rule needs exactly one of `command`, `command_regex` or `path`" });
    if (rule.command_regex !== undefined) {
      try {
        new RegExp(rule.command_regex);
      } catch (error) {
        context.addIssue({ code: "custom", path: ["command_regex"], message: `not a valid regular expression: ${(error as Error).message}` });
      }
    }
  }));
export type ApprovalRule = z.infer<typeof ApprovalRule>;

/**
 * `config.toml`, with Codex's snake_case keys so a Codex config and Codex's `-c` flags drive us
 * unchanged. Keys we do not know are kept and ignored, as newer Codex configs carry many.
 */
export const Config = lazySchema(() => z.looseObject({
  model: z.string().optional(),
  model_provider: z.string().optional(),
  model_providers: z.record(z.string(), ModelProviderConfig).optional(),
  model_reasoning_effort: z.string().optional(),
  model_reasoning_summary: ReasoningSummary.optional(),
  model_context_window: z.number().int().positive().optional(),
  model_auto_compact_token_limit: z.number().int().positive().optional(),
  approval_policy: AskForApprovalInput.optional(),
  /** Who answers approvals by default: the user, or the automatic reviewer (`auto_review`), as in Codex. */
  approvals_reviewer: ApprovalsReviewer.optional(),
  sandbox_mode: SandboxMode.optional(),
  sandbox_workspace_write: SandboxWorkspaceWriteConfig.optional(),
  shell_environment_policy: ShellEnvironmentPolicyConfig.optional(),
  mcp_servers: z.record(z.string(), McpServerConfig).optional(),
  /** The port of the OAuth callback server of `mcpServer/oauth/login` on 127.0.0.1 (default: any free one). */
  mcp_oauth_callback_port: z.number().int().min(0).max(65535).optional(),
  developer_instructions: z.string().optional(),
  instructions: z.string().optional(),
  thread_unload_delay_secs: z.number().nonnegative().optional(),
  /** Our key: stable ids, a stepping clock (golden transcripts); same as `--deterministic`. */
  deterministic: z.boolean().optional(),
  /** Our key: the JSON script of the `scripted` model provider; same as `--script`. */
  scripted_model_script: z.string().optional(),
  /** Our key: a file where the scripted model counts the responses served, so a restart continues the script. */
  scripted_model_progress: z.string().optional(),
  /** Our key: a JSON file of recorded MCP servers (a scenario's `mcpServers`), answered from the recording instead of started. */
  scripted_mcp_script: z.string().optional(),
  /** Our key: unread output a WebSocket client may leave queued before it is disconnected (bytes, default 16 MiB). */
  websocket_max_buffered_bytes: z.number().int().positive().optional(),
  /** Our key: bytes read from all WebSocket clients together and not yet whole messages, before reading pauses (default 64 MiB). */
  websocket_max_inbound_bytes: z.number().int().positive().optional(),
  /** Our key: the largest message a client may send, a stdio line or a WebSocket message (bytes, default 64 MiB; `--max-line-bytes` wins). */
  max_message_bytes: z.number().int().positive().optional(),
  /** Our key: requests one connection may have admitted and unanswered before -32001 (default 128). */
  max_pending_requests_per_connection: z.number().int().positive().optional(),
  /** Our key: requests all connections together may have admitted and unanswered before -32001 (default 1024; `initialize` passes). */
  max_pending_requests_total: z.number().int().positive().optional(),
  /** Our key: bytes of files `fs/readFile` may hold at once over all connections before -32001 (default 128 MiB). */
  fs_max_concurrent_read_bytes: z.number().int().positive().optional(),
  /** Our key: the bubblewrap binary sandboxed commands run under (default `bwrap` on PATH). */
  bwrap_path: z.string().optional(),
  /** `[[skills.config]]`: skills switched off (or back on) by SKILL.md path or by name (`skills/config/write`). */
  skills: z
    .looseObject({ config: z.array(z.object({ path: z.string().optional(), name: z.string().optional(), enabled: z.boolean() })).optional() })
    .optional(),
  /** `[features]`: `shell_snapshot = false` runs every command's login profile anew (src/agent/exec/loginShell.ts). */
  features: z.looseObject({ shell_snapshot: z.boolean().optional() }).optional(),
  /** `[tools]`: optional tools (`experimental_request_user_input.enabled` offers `request_user_input`). */
  tools: z.looseObject({ experimental_request_user_input: z.looseObject({ enabled: z.boolean().optional() }).optional() }).optional(),
  /** Decide before a client is asked: first matching rule wins (see src/agent/safety/approvalRules.ts). */
  approval_rules: z.array(ApprovalRule).optional(),
  projects: z.record(z.string(), z.looseObject({ trust_level: z.string().optional() })).optional(),
}));
export type Config = z.infer<typeof Config>;
