/**
 * `externalAgentConfig/detect` and `/import` over Claude Code's setup (see claudeCode.ts for what is
 * read). Detect lists what importing would change; import carries out the same plans, item by item,
 * never overwriting what exists here, and says per item what was brought over and what failed.
 */
import { constants } from "node:fs";
import { cp, mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ImportFailure, ImportSuccess, MigrationItem, MigrationItemType } from "../../protocol/externalAgentMethods.js";
import { realLocation } from "../../workspace/confinement.js";
import { directoriesFromRoot } from "../../workspace/repository.js";
import { isInside } from "../../workspace/roots.js";
import type { ConfigEdit } from "../configStore.js";
import type { Config } from "../schema.js";
import { agentsMdPlan, configPlan, mcpPlan, skillsPlan, type MigrationPlaces } from "./claudeCode.js";

/** What detect and import read and write. */
export interface MigrationDeps {
  readonly places: MigrationPlaces;
  /** The user config file (where CONFIG and MCP_SERVER_CONFIG go). */
  readonly configFile: string;
  /** The effective config now. */
  readonly config: () => Config;
  /** Writes config.toml edits (all or none). */
  readonly writeConfig: (edits: readonly ConfigEdit[]) => Promise<void>;
}

/** What importing one item did. */
export interface ItemOutcome {
  readonly itemType: MigrationItemType;
  readonly successes: ImportSuccess[];
  readonly failures: ImportFailure[];
}

// Codex can import these from Claude Code too; this server cannot run them, so it neither lists nor imports them.
const NOT_IMPORTED: Partial<Record<MigrationItemType, string>> = {
  PLUGINS: "Claude Code plugins come from their marketplaces, which this server does not install from",
  SUBAGENTS: "this server has no subagents",
  HOOKS: "this server does not run hooks",
  COMMANDS: "this server has no custom slash commands",
  MEMORY: "this server has no memories",
  SESSIONS: "this server does not import other agents' sessions",
};

/** `externalAgentConfig/detect`: what importing Claude Code's setup would bring over (Cursor's is not read). */
export async function detectMigrations(deps: MigrationDeps, request: { includeHome: boolean; cwds: readonly string[]; migrationSource: string | null }): Promise<MigrationItem[]> {
  if (request.migrationSource?.toLowerCase() === "cursor") return [];
  const items: MigrationItem[] = [];
  if (request.includeHome) {
    const config = configPlan(deps.places, currentSettings(deps.config()));
    const mcp = mcpPlan(deps.places, new Set(Object.keys(deps.config().mcp_servers ?? {})));
    const [configFound, mcpFound] = await Promise.all([config, mcp]);
    if (configFound) items.push({ itemType: "CONFIG", description: `Migrate ${configFound.source} into ${deps.configFile}`, cwd: null, details: null });
    if (mcpFound) {
      const mcpServers = Object.keys(mcpFound.servers).map((name) => ({ name }));
      items.push({ itemType: "MCP_SERVER_CONFIG", description: `Migrate MCP servers from ${mcpFound.sources.join(", ")} into ${deps.configFile}`, cwd: null, details: { mcpServers } });
    }
  }
  const scopes: Array<string | null> = [...(request.includeHome ? [null] : []), ...(await repositories(request.cwds))];
  for (const repo of scopes) {
    const [skills, agentsMd] = await Promise.all([skillsPlan(deps.places, repo), agentsMdPlan(deps.places, repo)]);
    if (skills) items.push({ itemType: "SKILLS", description: `Migrate skills from ${skills.sourceDir} to ${skills.targetDir}`, cwd: repo, details: { skills: skills.names.map((name) => ({ name })) } });
    if (agentsMd) items.push({ itemType: "AGENTS_MD", description: `Migrate ${agentsMd.source} to ${agentsMd.target}`, cwd: repo, details: null });
  }
  return items;
}

/** Imports one item; a failure is part of the outcome, never thrown. */
export async function importMigration(deps: MigrationDeps, item: MigrationItem): Promise<ItemOutcome> {
  const cwd = item.cwd || null;
  const outcome: ItemOutcome = { itemType: item.itemType, successes: [], failures: [] };
  const fail = (message: string, errorType = "external_agent_config_import_error", source: string | null = null) =>
    outcome.failures.push({ itemType: item.itemType, cwd, source, failureStage: "import_request_failed", errorType, message });
  const reason = NOT_IMPORTED[item.itemType];
  if (reason) {
    fail(`${item.itemType} is not imported by agent-app-server: ${reason}`, "unsupported_item_type");
    return outcome;
  }
  try {
    const repo = cwd === null ? null : await repositoryOf(cwd);
    if (cwd !== null && repo === null) return outcome;
    if ((item.itemType === "CONFIG" || item.itemType === "MCP_SERVER_CONFIG") && repo !== null) {
      fail(`${item.itemType} is imported for the home only: this server has no per-repository config.toml`, "unsupported_item_type");
      return outcome;
    }
    const success = (source: string, target: string) => outcome.successes.push({ itemType: item.itemType, cwd, source, target, title: null });
    switch (item.itemType) {
      case "AGENTS_MD": {
        const plan = await agentsMdPlan(deps.places, repo);
        if (!plan) break;
        // Never through a symlink at AGENTS.md (a model's, dangling to /etc/cron.d/x): it is written as the server.
        await writeFile(plan.target, plan.text, { flag: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW });
        success(plan.source, plan.target);
        break;
      }
      case "SKILLS": {
        const plan = await skillsPlan(deps.places, repo);
        if (!plan) break;
        const wanted = item.details?.skills?.map((skill) => skill.name);
        // A repository's folders may be a model's: .agents/skills (or .claude/skills) linked out of it would
        // have the server copy the model's files anywhere (a .ssh in a home without one), or copy what it reads.
        if (repo !== null && !(await staysInside([plan.sourceDir, plan.targetDir], repo))) {
          fail(`${plan.sourceDir} or ${plan.targetDir} leads out of the repository ${repo} through a symlink; nothing was copied`);
          break;
        }
        await mkdir(plan.targetDir, { recursive: true });
        for (const name of plan.names.filter((candidate) => !wanted || wanted.includes(candidate))) {
          try {
            // errorOnExist with force off: a folder that appeared meanwhile is never overwritten.
            await cp(path.join(plan.sourceDir, name), path.join(plan.targetDir, name), { recursive: true, force: false, errorOnExist: true });
            success(name, name);
          } catch (error) {
            fail(`could not copy skill ${name}: ${messageOf(error)}`, undefined, name);
          }
        }
        break;
      }
      case "CONFIG": {
        const plan = await configPlan(deps.places, currentSettings(deps.config()));
        if (!plan) break;
        const edits: ConfigEdit[] = [];
        if (Object.keys(plan.env).length > 0) edits.push({ keyPath: "shell_environment_policy.set", value: plan.env, mergeStrategy: "upsert" });
        if (plan.sandboxMode) edits.push({ keyPath: "sandbox_mode", value: plan.sandboxMode, mergeStrategy: "replace" });
        await deps.writeConfig(edits);
        success(plan.source, deps.configFile);
        break;
      }
      case "MCP_SERVER_CONFIG": {
        const plan = await mcpPlan(deps.places, new Set(Object.keys(deps.config().mcp_servers ?? {})));
        if (!plan) break;
        const wanted = item.details?.mcpServers?.map((server) => server.name);
        const names = Object.keys(plan.servers).filter((name) => !wanted || wanted.includes(name));
        if (names.length === 0) break;
        await deps.writeConfig(names.map((name) => ({ keyPath: `mcp_servers."${name}"`, value: plan.servers[name], mergeStrategy: "replace" })));
        for (const name of names) success(name, name);
        break;
      }
    }
  } catch (error) {
    fail(messageOf(error));
  }
  return outcome;
}

function currentSettings(config: Config): { env: Record<string, string>; sandboxModeSet: boolean } {
  return { env: config.shell_environment_policy?.set ?? {}, sandboxModeSet: config.sandbox_mode !== undefined };
}

/** The repositories of the cwds that exist, each once. */
async function repositories(cwds: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const cwd of cwds) {
    const repo = await repositoryOf(cwd);
    if (repo !== null && !found.includes(repo)) found.push(repo);
  }
  return found;
}

/** The repository root of an existing directory (else the directory itself); null when it does not exist. */
async function repositoryOf(cwd: string): Promise<string | null> {
  const dir = path.resolve(cwd);
  const isDirectory = await stat(dir).then(
    (info) => info.isDirectory(),
    () => false,
  );
  return isDirectory ? (await directoriesFromRoot(dir))[0]! : null;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether each of `paths`, symlinks resolved as far as they exist, is inside `repo` (resolved too). */
async function staysInside(paths: readonly string[], repo: string): Promise<boolean> {
  const root = await realLocation(repo);
  for (const entry of paths) if (!isInside(await realLocation(entry), root)) return false;
  return true;
}
