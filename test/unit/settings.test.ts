import { describe, expect, it } from "vitest";
import { effectiveSettings, threadSettingsRequest, turnSettingsRequest } from "../../src/agent/settings.js";

const host = { cwd: "/srv/work", env: {} };

describe("effective settings: one function for every method", () => {
  it("defaults a new thread: request over per-request config over config.toml over built-in defaults", () => {
    expect(effectiveSettings({}, null, {}, host)).toEqual({
      model: "gpt-5.5",
      modelProvider: "openai",
      cwd: "/srv/work",
      approvalPolicy: "on-request",
      approvalsReviewer: "user",
      sandbox: { type: "readOnly", networkAccess: false },
      reasoningEffort: null,
      reasoningSummary: null,
      serviceTier: null,
      baseInstructions: null,
      developerInstructions: null,
    });
    const config = { model: "from-config", sandbox_mode: "workspace-write" as const, sandbox_workspace_write: { writable_roots: ["/data"] } };
    const settings = effectiveSettings(config, null, threadSettingsRequest({ cwd: "sub", config: { model: "from-request-config" } }), host);
    expect(settings.model).toBe("from-request-config");
    expect(settings.cwd).toBe("/srv/work/sub");
    expect(settings.sandbox).toMatchObject({ type: "workspaceWrite", writableRoots: ["/data"] });
    expect(effectiveSettings(config, null, threadSettingsRequest({ model: "asked" }), host).model).toBe("asked");
  });

  it("takes the provider from the model when none is chosen; a chosen one always wins", () => {
    expect(effectiveSettings({ model: "claude-sonnet-4-5" }, null, {}, host).modelProvider).toBe("anthropic");
    expect(effectiveSettings({}, null, threadSettingsRequest({ model: "gemini-2.5-pro" }), host).modelProvider).toBe("google");
    expect(effectiveSettings({ model: "qwen3" }, null, {}, host).modelProvider).toBe("openai");
    expect(effectiveSettings({ model: "claude-x", model_provider: "gateway" }, null, {}, host).modelProvider).toBe("gateway");
    expect(effectiveSettings({}, null, threadSettingsRequest({ model: "claude-x", modelProvider: "openrouter" }), host).modelProvider).toBe("openrouter");
    // A thread whose provider was only implied follows a new model; one chosen explicitly stays.
    const implied = effectiveSettings({ model: "claude-x" }, null, {}, host);
    expect(effectiveSettings({}, implied, turnSettingsRequest({ threadId: "t", input: [], model: "gemini-3-pro" }), host).modelProvider).toBe("google");
    const chosen = effectiveSettings({}, null, threadSettingsRequest({ model: "claude-x", modelProvider: "gateway" }), host);
    expect(effectiveSettings({}, chosen, turnSettingsRequest({ threadId: "t", input: [], model: "gemini-3-pro" }), host).modelProvider).toBe("gateway");
  });

  it("keeps a stored thread's settings except what the request names; a policy wins over a mode", () => {
    const stored = effectiveSettings({ model: "first" }, null, {}, host);
    const resumed = effectiveSettings({ model: "changed-in-config" }, stored, threadSettingsRequest({ sandbox: "danger-full-access" }), host);
    expect(resumed.model).toBe("first");
    expect(resumed.sandbox).toEqual({ type: "dangerFullAccess" });
    const turn = effectiveSettings({}, resumed, { ...turnSettingsRequest({ threadId: "t", input: [], effort: "high", sandboxPolicy: { type: "readOnly" } }), sandboxMode: "danger-full-access" }, host);
    expect(turn).toMatchObject({ model: "first", reasoningEffort: "high", sandbox: { type: "readOnly" } });
  });

  it("refuses a per-request config override the config schema rejects", () => {
    expect(() => effectiveSettings({}, null, { config: { sandbox_mode: "everything" } }, host)).toThrow(/invalid config override `sandbox_mode`/);
  });
});
