/**
 * What Codex's config.toml knows (Codex's `ConfigToml` schema): its top-level keys and its feature
 * flags. A config written for Codex is valid here even where we do not act on a key, so
 * `--strict-config` refuses only keys neither Codex nor we know, and `--enable`/`--disable` accept
 * every Codex feature name.
 */

/** Codex's top-level config.toml keys. */
export const CODEX_CONFIG_KEYS: ReadonlySet<string> = new Set([
  "agents", "allow_login_shell", "analytics", "approval_policy", "approvals_reviewer", "apps", "apps_mcp_product_sku",
  "audio", "auto_review", "background_terminal_max_timeout", "chatgpt_base_url", "check_for_update_on_startup",
  "cli_auth_credentials_store", "compact_prompt", "debug", "default_permissions", "desktop", "developer_instructions",
  "disable_paste_burst", "experimental_compact_prompt_file", "experimental_realtime_start_instructions",
  "experimental_realtime_ws_backend_prompt", "experimental_realtime_ws_base_url", "experimental_realtime_ws_model",
  "experimental_realtime_ws_startup_context", "experimental_thread_config_endpoint", "experimental_thread_store",
  "experimental_use_unified_exec_tool", "features", "feedback", "file_opener", "forced_chatgpt_workspace_id",
  "forced_login_method", "ghost_snapshot", "hide_agent_reasoning", "history", "hooks", "include_apps_instructions",
  "include_collaboration_mode_instructions", "include_environment_context", "include_permissions_instructions",
  "instructions", "log_dir", "marketplaces", "mcp_oauth_callback_port", "mcp_oauth_callback_url",
  "mcp_oauth_credentials_store", "mcp_servers", "memories", "model", "model_auto_compact_token_limit",
  "model_auto_compact_token_limit_scope", "model_catalog_json", "model_context_window", "model_instructions_file",
  "model_provider", "model_providers", "model_reasoning_effort", "model_reasoning_summary",
  "model_supports_reasoning_summaries", "model_verbosity", "notice", "notify", "openai_base_url", "oss_provider", "otel",
  "permissions", "personality", "plan_mode_reasoning_effort", "plugins", "profile", "profiles",
  "project_doc_fallback_filenames", "project_doc_max_bytes", "project_root_markers", "projects", "realtime",
  "review_model", "sandbox_mode", "sandbox_workspace_write", "service_tier", "shell_environment_policy",
  "show_raw_agent_reasoning", "skills", "sqlite_home", "suppress_unstable_features_warning", "tool_output_token_limit",
  "tool_suggest", "tools", "tui", "web_search", "windows",
]);

/** Codex's feature flags (`[features]`). */
export const CODEX_FEATURES: ReadonlySet<string> = new Set([
  "apply_patch_freeform", "apply_patch_streaming_events", "apps", "apps_mcp_path_override", "auth_elicitation",
  "browser_use", "browser_use_external", "child_agents_md", "chronicle", "code_mode", "code_mode_only",
  "codex_git_commit", "codex_hooks", "collab", "collaboration_modes", "computer_use", "connectors",
  "default_mode_request_user_input", "elevated_windows_sandbox", "enable_experimental_windows_sandbox", "enable_fanout",
  "enable_mcp_apps", "enable_request_compression", "exec_permission_approvals", "experimental_use_unified_exec_tool",
  "experimental_windows_sandbox", "external_migration", "fast_mode", "goals", "guardian_approval", "hooks",
  "image_detail_original", "image_generation", "imagegenext", "in_app_browser", "js_repl", "js_repl_tools_only",
  "local_thread_store_compression", "memories", "memory_tool", "mentions_v2", "multi_agent", "multi_agent_v2",
  "network_proxy", "non_prefixed_mcp_tool_names", "personality", "plugin_hooks", "plugin_sharing", "plugins",
  "prevent_idle_sleep", "realtime_conversation", "remote_compaction_v2", "remote_control", "remote_models",
  "remote_plugin", "request_permissions", "request_permissions_tool", "request_rule",
  "responses_websocket_response_processed", "responses_websockets", "responses_websockets_v2", "runtime_metrics",
  "search_tool", "shell_snapshot", "shell_tool", "shell_zsh_fork", "skill_env_var_dependency_prompt",
  "skill_mcp_dependency_install", "sqlite", "standalone_web_search", "steer", "telepathy", "terminal_resize_reflow",
  "tool_call_mcp_elicitation", "tool_search", "tool_search_always_defer_mcp_tools", "tool_suggest", "tui_app_server",
  "unavailable_dummy_tools", "undo", "unified_exec", "unified_exec_zsh_fork", "use_legacy_landlock",
  "use_linux_sandbox_bwrap", "web_search", "web_search_cached", "web_search_request", "workspace_dependencies",
  "workspace_owner_usage_nudge",
]);
