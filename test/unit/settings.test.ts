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
