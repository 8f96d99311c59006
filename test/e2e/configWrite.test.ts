import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { bwrapAvailable } from "../support/sandbox.js";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, servers, tempDir } from "../support/turnHarness.js";

function configFile(home: string): Record<string, any> {
  return parse(readFileSync(path.join(home, "config.toml"), "utf8")) as Record<string, any>;
}

describe("config writes", () => {
  it("writes config.toml, is read back by config/read and used by new threads", async () => {
    const { server } = await launch([]);
    const written = await server.request("config/value/write", { keyPath: "model_reasoning_effort", value: "high", mergeStrategy: "replace" });
    expect(written.result).toMatchObject({ status: "ok", filePath: path.join(server.home, "config.toml") });
    expect(written.result.version).toMatch(/^sha256:/);
    expect(configFile(server.home).model_reasoning_effort).toBe("high");
    const read = await server.request("config/read", { includeLayers: true });
    expect(read.result.config.model_reasoning_effort).toBe("high");
    expect(read.result.origins.model_reasoning_effort.name.type).toBe("user");
    expect(read.result.layers.find((layer: any) => layer.name.type === "user").version).toBe(written.result.version);
    const thread = await server.request("thread/start", {});
    expect(thread.result.reasoningEffort).toBe("high");

    // The key the TUI writes when the user trusts a folder: quoted segments, upsert into a table.
    const trust = await server.request("config/batchWrite", {
      edits: [
        { keyPath: 'projects."/work/a.b".trust_level', value: "trusted", mergeStrategy: "replace" },
        { keyPath: "sandbox_workspace_write", value: { network_access: true }, mergeStrategy: "upsert" },
      ],
      filePath: null,
      expectedVersion: written.result.version,
      reloadUserConfig: true,
    });
    expect(trust.result.status).toBe("ok");
    expect(configFile(server.home).projects["/work/a.b"].trust_level).toBe("trusted");
  });

  it("refuses invalid values naming the key path, applies a batch all or nothing, and checks the version", async () => {
    const { server } = await launch([]);
    const bad = await server.request("config/value/write", { keyPath: "approval_policy", value: "sometimes", mergeStrategy: "replace" });
    expect(bad.error.code).toBe(-32602);
    expect(bad.error.message).toMatch(/`approval_policy`.*\(got "sometimes"\)/);
    expect(bad.error.data.issues[0].path).toEqual(["approval_policy"]);
    const batch = await server.request("config/batchWrite", {
      edits: [
        { keyPath: "model_reasoning_effort", value: "low", mergeStrategy: "replace" },
        { keyPath: "sandbox_mode", value: "everything", mergeStrategy: "replace" },
      ],
    });
    expect(batch.error.message).toMatch(/`sandbox_mode`/);
    const badPath = await server.request("config/value/write", { keyPath: "a..b", value: 1, mergeStrategy: "replace" });
    expect(badPath.error.code).toBe(-32602);
    const first = await server.request("config/value/write", { keyPath: "instructions", value: "Be brief.", mergeStrategy: "replace" });
    expect(configFile(server.home)).toEqual({ instructions: "Be brief." });
    const stale = await server.request("config/value/write", { keyPath: "instructions", value: "x", mergeStrategy: "replace", expectedVersion: "sha256:0000" });
    expect(stale.error.code).toBe(-32600);
    const fresh = await server.request("config/value/write", { keyPath: "instructions", value: "Be kind.", mergeStrategy: "replace", expectedVersion: first.result.version });
    expect(fresh.result.status).toBe("ok");
    const elsewhere = await server.request("config/value/write", { keyPath: "model", value: "m", mergeStrategy: "replace", filePath: "/etc/other.toml" });
    expect(elsewhere.error.code).toBe(-32600);
  });

  it("loses no edit under concurrent writes, and says when a -c flag keeps overriding a key", async () => {
    const { server } = await launch([]);
    const writes = Array.from({ length: 20 }, (_, i) =>
      server.request("config/value/write", { keyPath: `projects."/p/${i}".trust_level`, value: "trusted", mergeStrategy: "replace" }),
    );
    const answers = await Promise.all(writes);
    expect(answers.every((answer) => answer.result?.status === "ok")).toBe(true);
    expect(Object.keys(configFile(server.home).projects)).toHaveLength(20);
    // launch passes -c model="gpt-5.5": writing model succeeds, but the flag stays in effect.
    const overridden = await server.request("config/value/write", { keyPath: "model", value: "other-model", mergeStrategy: "replace" });
    expect(overridden.result).toMatchObject({ status: "okOverridden", overriddenMetadata: { effectiveValue: "gpt-5.5", overridingLayer: { name: { type: "sessionFlags" } } } });
    expect((await server.request("config/read", {})).result.config.model).toBe("gpt-5.5");
  });

  it("keeps the user's comments, blank lines and formatting: only the written keys change", async () => {
    const home = tempDir("aas-config-home-");
    const file = path.join(home, "config.toml");
    const lines = (...text: string[]) => text.join("\n") + "\n";
    writeFileSync(
      file,
      lines(
        "# agent-app-server config, written by hand.",
        "# Keep the model first.",
        "",
        'model = "gpt-5.5"   # the default model',
        'model_reasoning_effort = "medium"  # high for big refactors',
        "",
        "# What commands may touch",
        'sandbox_mode = "workspace-write"',
        'shell_environment_policy = { inherit = "core", set = { FOO = "1" } }  # inline table',
        'developer_instructions = """',
        "Be brief.",
        "# This line belongs to the string.",
        '"""',
        "",
        "[sandbox_workspace_write]",
        "# Roots besides the cwd.",
        'writable_roots = ["/tmp/cache"]  # shared cache',
        "",
        "# Servers, off for now",
        '[mcp_servers."my server"]',
        'command = "npx"',
        'args = ["-y", "my-server"]',
        "enabled = false",
        "",
        "# Skills switched off",
        "[[skills.config]]",
        'name = "deploy"',
        "enabled = false",
        "",
        "# Trusted folders",
        '[projects."/work/app"]',
        'trust_level = "trusted"',
        "",
        "# end of file",
      ),
    );
    const server = ServerProcess.start({ home });
    servers.push(server);
    await server.initialize();
    const model = await server.request("config/value/write", { keyPath: "model", value: "gpt-5.5-codex", mergeStrategy: "replace" });
    const batch = await server.request("config/batchWrite", {
      edits: [
        { keyPath: "sandbox_workspace_write", value: { network_access: true }, mergeStrategy: "upsert" },
        { keyPath: "shell_environment_policy.set", value: { BAR: "2" }, mergeStrategy: "upsert" },
        { keyPath: 'projects."/work/new.app".trust_level', value: "trusted", mergeStrategy: "replace" },
        { keyPath: "model_reasoning_effort", value: null, mergeStrategy: "replace" },
      ],
      expectedVersion: model.result.version,
    });
    expect(batch.result.status).toBe("ok");
    expect((await server.request("skills/config/write", { name: "lint", enabled: false })).result).toEqual({ effectiveEnabled: false });
    const provider = await server.request("modelProvider/config/write", { settings: { type: "customGateway", name: "My Gateway", baseUrl: "http://127.0.0.1:9999/v1" } });
    expect(provider.result.provider.id).toBe("my-gateway");
    expect(readFileSync(file, "utf8")).toBe(
      lines(
        "# agent-app-server config, written by hand.",
        "# Keep the model first.",
        "",
        'model = "gpt-5.5-codex"   # the default model',
        "",
        "# What commands may touch",
        'sandbox_mode = "workspace-write"',
        'shell_environment_policy = { inherit = "core", set = { FOO = "1", BAR = "2" } }  # inline table',
        'developer_instructions = """',
        "Be brief.",
        "# This line belongs to the string.",
        '"""',
        "",
        "[sandbox_workspace_write]",
        "# Roots besides the cwd.",
        'writable_roots = ["/tmp/cache"]  # shared cache',
        "network_access = true",
        "",
        "# Servers, off for now",
        '[mcp_servers."my server"]',
        'command = "npx"',
        'args = ["-y", "my-server"]',
        "enabled = false",
        "",
        "# Skills switched off",
        "[[skills.config]]",
        'name = "deploy"',
        "enabled = false",
        "",
        "[[skills.config]]",
        'name = "lint"',
        "enabled = false",
        "",
        "# Trusted folders",
        '[projects."/work/app"]',
        'trust_level = "trusted"',
        "",
        '[projects."/work/new.app"]',
        'trust_level = "trusted"',
        "",
        "[model_providers.my-gateway]",
        'name = "My Gateway"',
        'base_url = "http://127.0.0.1:9999/v1"',
        "",
        "# end of file",
      ),
    );
    // The version config/read reports is the written file's: a write expecting it goes through, and
    // one that changes nothing leaves the text as it is.
    const before = readFileSync(file, "utf8");
    const read = await server.request("config/read", { includeLayers: true });
    const version = read.result.layers.find((layer: any) => layer.name.type === "user").version;
    const same = await server.request("config/value/write", { keyPath: "sandbox_mode", value: "workspace-write", mergeStrategy: "replace", expectedVersion: version });
    expect(same.result).toMatchObject({ status: "ok", version });
    expect(readFileSync(file, "utf8")).toBe(before);
    // Switching both skills back on clears the array: its entries go with their comments, and no bare `[skills]` is left.
    await server.request("skills/config/write", { name: "deploy", enabled: true });
    await server.request("skills/config/write", { name: "lint", enabled: true });
    const after = readFileSync(file, "utf8");
    expect(after).toBe(before.replace('# Skills switched off\n[[skills.config]]\nname = "deploy"\nenabled = false\n\n[[skills.config]]\nname = "lint"\nenabled = false\n\n', ""));
  });

  // One source of config truth: command/exec and fs/* read the config as it is now, as turns do.
  it.skipIf(!bwrapAvailable)("a config write reaches command/exec's sandbox and the fs/* roots at once", async () => {
    const cwd = tempDir("aas-config-cwd-");
    const extra = tempDir("aas-config-extra-");
    writeFileSync(path.join(extra, "note.txt"), "hello");
    const server = ServerProcess.start({ args: ["app-server"], cwd, env: { TMPDIR: "" } });
    servers.push(server);
    await server.initialize();
    const touch = (file: string) => server.request("command/exec", { command: ["touch", path.join(cwd, file)], sandboxPolicy: null });
    await server.request("config/value/write", { keyPath: "sandbox_mode", value: "workspace-write", mergeStrategy: "replace" });
    expect((await touch("first.txt")).result.exitCode).toBe(0);
    await server.request("config/value/write", { keyPath: "sandbox_mode", value: "read-only", mergeStrategy: "replace" });
    expect((await touch("second.txt")).result.exitCode).not.toBe(0);
    expect(existsSync(path.join(cwd, "second.txt"))).toBe(false);

    const read = () => server.request("fs/readFile", { path: path.join(extra, "note.txt") });
    expect((await read()).error.code).toBe(-32600);
    await server.request("config/value/write", { keyPath: "sandbox_workspace_write.writable_roots", value: [extra], mergeStrategy: "replace" });
    expect(Buffer.from((await read()).result.dataBase64, "base64").toString()).toBe("hello");
  });
});

describe("experimental features", () => {
  it("lists the flags this server acts on, and switches them for the process without touching config.toml", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const listed = (await server.request("experimentalFeature/list", {})).result;
    expect(listed).toEqual({
      data: [expect.objectContaining({ name: "shell_snapshot", stage: "stable", defaultEnabled: true, enabled: true })],
      nextCursor: null,
    });
    const set = await server.request("experimentalFeature/enablement/set", { enablement: { shell_snapshot: false, unified_exec: true } });
    expect(set.result).toEqual({ enablement: { shell_snapshot: false, unified_exec: true } });
    expect((await server.request("experimentalFeature/list", {})).result.data[0].enabled).toBe(false);
    expect((await server.request("config/read", {})).result.config.features).toMatchObject({ shell_snapshot: false });
    expect(existsSync(path.join(server.home, "config.toml"))).toBe(false);
    // A later config write keeps the runtime switch on top.
    await server.request("config/value/write", { keyPath: "model", value: "gpt-5.5", mergeStrategy: "replace" });
    expect((await server.request("experimentalFeature/list", {})).result.data[0].enabled).toBe(false);
    expect((await server.request("experimentalFeature/enablement/set", { enablement: { no_such: true } })).error).toEqual({ code: -32600, message: "unknown feature: no_such" });
    await server.closeStdin();
  });
});

describe("model providers", () => {
  it("lists the built-in and configured providers, the default one, and what they offer", async () => {
    const server = ServerProcess.start({
      args: ["app-server", "-c", `model_providers.local={name="Local",base_url="http://user:secret@127.0.0.1:1234/v1?key=k",wire_api="chat",env_key="LOCAL_KEY"}`, "-c", `model_provider="local"`],
    });
    await server.initialize();
    const listed = (await server.request("modelProvider/list", {})).result;
    expect(listed).toEqual({
      data: [
        { id: "anthropic", name: "Anthropic", baseUrl: "https://api.anthropic.com/", canEdit: false, settings: { type: "customGateway", auth: { mode: "environmentVariable", envKey: "ANTHROPIC_API_KEY" } } },
        { id: "google", name: "Google Gemini", baseUrl: "https://generativelanguage.googleapis.com/", canEdit: false, settings: { type: "customGateway", auth: { mode: "environmentVariable", envKey: "GEMINI_API_KEY" } } },
        { id: "local", name: "Local", baseUrl: "http://127.0.0.1:1234/v1", canEdit: false, settings: { type: "customGateway", auth: { mode: "environmentVariable", envKey: "LOCAL_KEY" } } },
        { id: "ollama", name: "Ollama", baseUrl: "http://localhost:11434/v1", canEdit: false, settings: { type: "customGateway", auth: { mode: "none" } } },
        { id: "openai", name: "OpenAI", baseUrl: expect.any(String), canEdit: false, settings: { type: "openai" } },
      ],
      defaultProviderId: "local",
      canChangeDefault: true,
    });
    expect(JSON.stringify(listed)).not.toContain("secret");
    expect((await server.request("modelProvider/capabilities/read", {})).result).toEqual({ imageGeneration: false, webSearch: false });
    await server.closeStdin();
  });

  it("writes an OpenAI-compatible gateway to config.toml with modelProvider/config/write, and edits it", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const created = await server.request("modelProvider/config/write", {
      settings: { type: "customGateway", name: "My Gateway", baseUrl: "http://127.0.0.1:9999/v1", envKey: "GW_KEY" },
    });
    expect(created.result.provider).toEqual({
      id: "my-gateway",
      name: "My Gateway",
      baseUrl: "http://127.0.0.1:9999/v1",
      canEdit: true,
      settings: { type: "customGateway", auth: { mode: "environmentVariable", envKey: "GW_KEY" } },
    });
    expect(configFile(server.home).model_providers["my-gateway"]).toEqual({ name: "My Gateway", base_url: "http://127.0.0.1:9999/v1", env_key: "GW_KEY" });
    const edited = await server.request("modelProvider/config/write", { settings: { type: "customGateway", providerId: "my-gateway", envKey: null } });
    expect(edited.result.provider.settings).toEqual({ type: "customGateway", auth: { mode: "none" } });
    expect(configFile(server.home).model_providers["my-gateway"]).toEqual({ name: "My Gateway", base_url: "http://127.0.0.1:9999/v1" });
    expect((await server.request("modelProvider/config/write", { settings: { type: "customGateway", providerId: "openai", name: "x" } })).error.message).toContain(
      "provider openai is built in or set by a flag",
    );
    expect((await server.request("modelProvider/config/write", { settings: { type: "bedrock", providerId: "amazon-bedrock" } })).error.message).toContain("bedrock providers are not supported");
    await server.closeStdin();
  });
});
