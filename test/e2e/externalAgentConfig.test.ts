import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";
import { tempDir } from "../support/turnHarness.js";

/** Writes `files` (path → text) under `root`. */
function tree(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
}

/** A user home with Claude Code's setup, and a repository with its own. */
function claudeSetup() {
  const userHome = tempDir("aas-user-");
  tree(userHome, {
    ".claude/CLAUDE.md": "Use pnpm. Keep CLAUDE.md short.\n",
    ".claude/settings.json": JSON.stringify({ env: { FOO: "bar", N: 3, SKIP: { nested: true } }, sandbox: { enabled: true } }),
    ".claude/settings.local.json": JSON.stringify({ env: { LOCAL: "1" } }),
    ".claude/skills/review/SKILL.md": "---\nname: review\ndescription: Reviews code\n---\nReview it.\n",
    ".claude/skills/review/notes.txt": "extra file\n",
    ".claude/skills/not-a-skill/README.md": "no SKILL.md here\n",
    ".claude.json": JSON.stringify({
      mcpServers: {
        files: { command: "aas-test-no-such-mcp-server", args: ["--root", "/tmp"], env: { TOKEN: "${TOKEN}", MODE: "ro" } },
        remote: { type: "http", url: "https://mcp.invalid/api", headers: { Authorization: "Bearer ${AAS_TEST_UNSET_KEY}" } },
        templated: { command: "${BIN}" },
        streaming: { type: "sse", url: "https://mcp.invalid/sse" },
        off: { command: "x", disabled: true },
        existing: { command: "y" },
      },
    }),
  });
  const repo = tempDir("aas-repo-");
  tree(repo, { ".git/HEAD": "ref: refs/heads/main\n", "CLAUDE.md": "Run the tests with CLAUDE.md rules.\n", ".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploys\n---\nDeploy.\n", "sub/x.txt": "" });
  return { userHome, repo };
}

describe("externalAgentConfig: Claude Code's setup detected and imported", () => {
  it("detects what would change, imports it without overwriting, reports each item, and records the import", async () => {
    const { userHome, repo } = claudeSetup();
    const home = tempDir("aas-home-");
    writeFileSync(path.join(home, "config.toml"), "[mcp_servers.existing]\ncommand = \"z\"\nenabled = false\n");
    const server = ServerProcess.start({ home, env: { HOME: userHome } });
    await server.initialize();

    const detected = (await server.request("externalAgentConfig/detect", { includeHome: true, cwds: [path.join(repo, "sub"), repo, "/no/such/dir"] })).result;
    expect(detected.connectors).toEqual([]);
    expect(detected.items).toEqual([
      { itemType: "CONFIG", description: `Migrate ${userHome}/.claude/settings.json into ${home}/config.toml`, cwd: null, details: null },
      {
        itemType: "MCP_SERVER_CONFIG",
        description: `Migrate MCP servers from ${userHome}/.claude.json into ${home}/config.toml`,
        cwd: null,
        details: { mcpServers: [{ name: "files" }, { name: "remote" }] },
      },
      { itemType: "SKILLS", description: `Migrate skills from ${userHome}/.claude/skills to ${home}/skills`, cwd: null, details: { skills: [{ name: "review" }] } },
      { itemType: "AGENTS_MD", description: `Migrate ${userHome}/.claude/CLAUDE.md to ${home}/AGENTS.md`, cwd: null, details: null },
      { itemType: "SKILLS", description: `Migrate skills from ${repo}/.claude/skills to ${repo}/.agents/skills`, cwd: repo, details: { skills: [{ name: "deploy" }] } },
      { itemType: "AGENTS_MD", description: `Migrate ${repo}/CLAUDE.md to ${repo}/AGENTS.md`, cwd: repo, details: null },
    ]);
    // Cursor's setup is not read.
    expect((await server.request("externalAgentConfig/detect", { includeHome: true, cwds: [repo], migrationSource: "Cursor" })).result.items).toEqual([]);

    const hooks = { itemType: "HOOKS", description: "Migrate hooks", cwd: null, details: { hooks: [{ name: "PreToolUse" }] } };
    const imported = await server.request("externalAgentConfig/import", { migrationItems: [...detected.items, hooks], providerId: "claude-code" });
    const importId = imported.result.importId;
    expect(importId).toEqual(expect.stringMatching(/-/));
    const completed = (await server.waitFor((m) => m.method === "externalAgentConfig/import/completed")).params;
    const progress = server.messages.filter((m) => m.method === "externalAgentConfig/import/progress");
    expect(progress).toHaveLength(7);
    expect(progress.every((m) => m.params.importId === importId && m.params.itemTypeResults.length === 1)).toBe(true);
    // Notifications come after the response.
    expect(server.messages.indexOf(progress[0]!)).toBeGreaterThan(server.messages.findIndex((m) => m.id === imported.id && m.result));
    const byType = Object.fromEntries(completed.itemTypeResults.map((result: any) => [result.itemType, result]));
    expect(completed.itemTypeResults.map((result: any) => result.itemType)).toEqual(["CONFIG", "MCP_SERVER_CONFIG", "SKILLS", "AGENTS_MD", "HOOKS"]);
    expect(byType.SKILLS.successes.map((s: any) => [s.cwd, s.source])).toEqual([
      [null, "review"],
      [repo, "deploy"],
    ]);
    expect(byType.MCP_SERVER_CONFIG.successes.map((s: any) => s.target)).toEqual(["files", "remote"]);
    expect(byType.AGENTS_MD.successes).toEqual([
      { itemType: "AGENTS_MD", cwd: null, source: `${userHome}/.claude/CLAUDE.md`, target: `${home}/AGENTS.md`, title: null },
      { itemType: "AGENTS_MD", cwd: repo, source: `${repo}/CLAUDE.md`, target: `${repo}/AGENTS.md`, title: null },
    ]);
    expect(byType.HOOKS).toEqual({
      itemType: "HOOKS",
      successes: [],
      failures: [{ itemType: "HOOKS", cwd: null, source: null, failureStage: "import_request_failed", errorType: "unsupported_item_type", message: "HOOKS is not imported by agent-app-server: this server does not run hooks" }],
    });

    // What was written, and where.
    expect(readFileSync(path.join(home, "AGENTS.md"), "utf8")).toBe("Use pnpm. Keep AGENTS.md short.\n");
    expect(readFileSync(path.join(repo, "AGENTS.md"), "utf8")).toBe("Run the tests with AGENTS.md rules.\n");
    expect(readFileSync(path.join(home, "skills", "review", "notes.txt"), "utf8")).toBe("extra file\n");
    expect(readFileSync(path.join(repo, ".agents", "skills", "deploy", "SKILL.md"), "utf8")).toContain("Deploy.");
    const config = (await server.request("config/read", {})).result.config;
    expect(config.shell_environment_policy.set).toEqual({ FOO: "bar", N: "3", LOCAL: "1" });
    expect(config.sandbox_mode).toBe("workspace-write");
    expect(config.mcp_servers.files).toEqual({ command: "aas-test-no-such-mcp-server", args: ["--root", "/tmp"], env: { MODE: "ro" }, env_vars: ["TOKEN"] });
    expect(config.mcp_servers.remote).toEqual({ url: "https://mcp.invalid/api", bearer_token_env_var: "AAS_TEST_UNSET_KEY" });
    expect(config.mcp_servers.existing).toEqual({ command: "z", enabled: false });
    // The imported skills are offered: skills/list finds the home one.
    const skills = (await server.request("skills/list", { cwds: [repo] })).result.data[0].skills.map((skill: any) => skill.name);
    expect(skills).toEqual(expect.arrayContaining(["review", "deploy"]));

    // Nothing is left to bring over; a second import changes nothing, overwrites nothing.
    writeFileSync(path.join(home, "AGENTS.md"), "Mine.\n");
    expect((await server.request("externalAgentConfig/detect", { includeHome: true, cwds: [repo] })).result.items).toEqual([]);
    const again = (await server.request("externalAgentConfig/import", { migrationItems: detected.items })).result.importId;
    const second = (await server.waitFor((m) => m.method === "externalAgentConfig/import/completed" && m.params.importId === again)).params;
    expect(second.itemTypeResults.flatMap((result: any) => [...result.successes, ...result.failures])).toEqual([]);
    expect(readFileSync(path.join(home, "AGENTS.md"), "utf8")).toBe("Mine.\n");

    // The history: both imports, newest first, and one a client recorded itself.
    const recorded = (await server.request("externalAgentConfig/import/recordHistory", {
      providerId: "other-tool",
      itemTypeResults: [{ itemType: "SKILLS", successes: [{ itemType: "SKILLS", source: "a", target: "a" }], failures: [] }],
    })).result.importId;
    const histories = (await server.request("externalAgentConfig/import/readHistories", null)).result;
    expect(histories.connectors).toEqual([]);
    expect(histories.data.map((entry: any) => [entry.importId, entry.providerId])).toEqual([
      [recorded, "other-tool"],
      [again, null],
      [importId, "claude-code"],
    ]);
    expect(histories.data[2].successes).toHaveLength(7);
    expect(histories.data[2].failures).toHaveLength(1);
    await server.closeStdin();

    // The history survives a restart.
    const restarted = ServerProcess.start({ home, env: { HOME: userHome } });
    await restarted.initialize();
    expect((await restarted.request("externalAgentConfig/import/readHistories", {})).result.data).toHaveLength(3);
    await restarted.closeStdin();
  });

  it("an empty import answers an id and sends nothing", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    expect((await server.request("externalAgentConfig/import", { migrationItems: [] })).result.importId).toEqual(expect.any(String));
    expect((await server.request("externalAgentConfig/import/readHistories", {})).result.data).toEqual([]);
    expect(server.messages.some((m) => m.method?.startsWith("externalAgentConfig/"))).toBe(false);
    await server.closeStdin();
  });
});
