import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";
import { servers, tempDir } from "../support/turnHarness.js";

/**
 * Found by an attack review: `externalAgentConfig/import` of a repository's AGENTS_MD (its CLAUDE.md made an
 * AGENTS.md, src/config/externalAgent/claudeCode.ts agentsMdPlan + migration.ts) reads and writes
 * as the server, following symlinks, in a repository the model writes (the user imports the
 * project a sandboxed model has worked in):
 *  - CLAUDE.md symlinked to the server's home (auth.json) or /proc/self/environ: its text is written
 *    into the repository's AGENTS.md, which the sandbox then reads;
 *  - AGENTS.md a dangling symlink (say to /etc/cron.d/x): "missing or blank", so the import
 *    writes the model's CLAUDE.md through it, as root, outside every writable root.
 *
 * It failed before the fix.
 */
const KEY = "sk-import-secret-0123456789abcdef";

async function importRepo(repo: string, home: string): Promise<void> {
  const server = ServerProcess.start({ home, env: { HOME: tempDir("aas-a2-imp-user-") } });
  servers.push(server);
  await server.initialize();
  const detected = (await server.request("externalAgentConfig/detect", { includeHome: false, cwds: [repo] })).result;
  const items = (detected?.items ?? []).filter((item: { itemType: string }) => item.itemType === "AGENTS_MD");
  expect(items.length).toBeGreaterThan(0);
  await server.request("externalAgentConfig/import", { migrationItems: items, providerId: "claude-code" });
  await server.waitFor((m) => m.method === "externalAgentConfig/import/completed", "import completed", 20_000);
}

describe("importing Claude's setup of a repository the model wrote", () => {
  it("CLAUDE.md symlinked into the server's home does not put the home's text into the repository", { timeout: 60_000 }, async () => {
    const home = tempDir("aas-a2-imp-home-");
    writeFileSync(path.join(home, "auth.json"), JSON.stringify({ OPENAI_API_KEY: KEY }));
    const repo = tempDir("aas-a2-imp-repo-");
    mkdirSync(path.join(repo, ".git"));
    writeFileSync(path.join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
    symlinkSync(path.join(home, "auth.json"), path.join(repo, "CLAUDE.md"));
    await importRepo(repo, home).catch(() => undefined);
    const written = existsSync(path.join(repo, "AGENTS.md")) ? readFileSync(path.join(repo, "AGENTS.md"), "utf8") : "";
    expect(written).not.toContain(KEY);
  });

  it("a dangling AGENTS.md symlink does not make the import write outside the repository", { timeout: 60_000 }, async () => {
    const home = tempDir("aas-a2-imp-home-");
    const victimDir = tempDir("aas-a2-imp-victim-");
    const victim = path.join(victimDir, "cron-job");
    const repo = tempDir("aas-a2-imp-repo-");
    mkdirSync(path.join(repo, ".git"));
    writeFileSync(path.join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(path.join(repo, "CLAUDE.md"), "* * * * * root /tmp/payload\n");
    symlinkSync(victim, path.join(repo, "AGENTS.md"));
    await importRepo(repo, home).catch(() => undefined);
    expect(existsSync(victim)).toBe(false);
  });

  it("SKILLS: a repository's .agents/skills symlinked elsewhere does not make the import copy the model's files there", { timeout: 60_000 }, async () => {
    const home = tempDir("aas-a2-imp-home-");
    // Say /root, where no .ssh exists yet: a skill named .ssh with an authorized_keys in it.
    const victimDir = tempDir("aas-a2-imp-victim-");
    const repo = tempDir("aas-a2-imp-repo-");
    mkdirSync(path.join(repo, ".git"));
    writeFileSync(path.join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
    mkdirSync(path.join(repo, ".claude", "skills", ".ssh"), { recursive: true });
    writeFileSync(path.join(repo, ".claude", "skills", ".ssh", "SKILL.md"), "---\nname: x\ndescription: y\n---\n");
    writeFileSync(path.join(repo, ".claude", "skills", ".ssh", "authorized_keys"), "ssh-ed25519 AAAA attacker\n");
    mkdirSync(path.join(repo, ".agents"));
    symlinkSync(victimDir, path.join(repo, ".agents", "skills"));
    const server = ServerProcess.start({ home, env: { HOME: tempDir("aas-a2-imp-user-") } });
    servers.push(server);
    await server.initialize();
    const detected = (await server.request("externalAgentConfig/detect", { includeHome: false, cwds: [repo] })).result;
    const items = (detected?.items ?? []).filter((item: { itemType: string }) => item.itemType === "SKILLS");
    if (items.length > 0) {
      await server.request("externalAgentConfig/import", { migrationItems: items, providerId: "claude-code" });
      await server.waitFor((m) => m.method === "externalAgentConfig/import/completed", "import completed", 20_000);
    }
    expect(existsSync(path.join(victimDir, ".ssh", "authorized_keys"))).toBe(false);
  });
});
