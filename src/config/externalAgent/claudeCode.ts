/**
 * Claude Code's setup, read as plans of what importing it would do here. Detect lists the plans
 * that would change something; import makes the same plans again and carries them out, so what a
 * client was shown is what gets done. Home scope reads `~/.claude`, `~/.claude.json` and
 * `~/.mcp.json`; repository scope reads the repository's `CLAUDE.md` and `.claude/`.
 */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { ConfinedFs } from "../../workspace/confinedFs.js";
import { readRegularFile } from "../../workspace/regularFiles.js";
import { SANDBOX_OWN_TREES } from "../../workspace/roots.js";
import type { McpServerConfig } from "../schema.js";
import { isTable } from "../tomlEdit.js";

// Settings, instructions and MCP lists are small; a larger file (or a FIFO, a device) is not read.
const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

/** Where the two agents keep things. */
export interface MigrationPlaces {
  /** The user's home directory (`$HOME`), where `~/.claude` is. */
  readonly userHome: string;
  /** This server's home (config.toml, skills/, AGENTS.md). */
  readonly home: string;
}

/** An AGENTS.md to write from a CLAUDE.md (the target is missing or blank). */
export interface AgentsMdPlan {
  readonly source: string;
  readonly target: string;
  readonly text: string;
}

/** Skill folders to copy (those whose name is free in the target). */
export interface SkillsPlan {
  readonly sourceDir: string;
  readonly targetDir: string;
  readonly names: readonly string[];
}

/** Settings of `~/.claude/settings.json` (and `settings.local.json` over it) that config.toml lacks. */
export interface ConfigPlan {
  readonly source: string;
  readonly env: Readonly<Record<string, string>>;
  readonly sandboxMode: "workspace-write" | null;
}

/** MCP servers of `~/.claude.json` and `~/.mcp.json` that config.toml lacks, converted. */
export interface McpPlan {
  readonly sources: readonly string[];
  readonly servers: Readonly<Record<string, McpServerConfig>>;
}

/** The CLAUDE.md of a scope (`cwd` null: the home) as an AGENTS.md, unless a non-blank one exists. */
export async function agentsMdPlan(places: MigrationPlaces, repo: string | null): Promise<AgentsMdPlan | null> {
  const candidates = repo === null ? [path.join(places.userHome, ".claude", "CLAUDE.md")] : [path.join(repo, "CLAUDE.md"), path.join(repo, ".claude", "CLAUDE.md")];
  const target = path.join(repo ?? places.home, "AGENTS.md");
  // A repository's files may be a model's: read inside it only, as a sandboxed command could
  // (CLAUDE.md linked to the server's auth.json would become the repository's AGENTS.md).
  const read = repo === null ? readText : await repositoryReader(repo);
  if (((await read(target)) ?? "").trim() !== "") return null;
  for (const source of candidates) {
    const text = await read(source);
    if (text !== null && text.trim() !== "") return { source, target, text: text.replaceAll("CLAUDE.md", "AGENTS.md") };
  }
  return null;
}

/** The skill folders (with a SKILL.md) of a scope that the matching skills folder here lacks. */
export async function skillsPlan(places: MigrationPlaces, repo: string | null): Promise<SkillsPlan | null> {
  const sourceDir = path.join(repo ?? places.userHome, ".claude", "skills");
  const targetDir = repo === null ? path.join(places.home, "skills") : path.join(repo, ".agents", "skills");
  const entries = await readdir(sourceDir, { withFileTypes: true }).catch(() => []);
  const names: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || !(await isFile(path.join(sourceDir, entry.name, "SKILL.md")))) continue;
    if (!(await exists(path.join(targetDir, entry.name)))) names.push(entry.name);
  }
  return names.length > 0 ? { sourceDir, targetDir, names: names.sort() } : null;
}

/** The environment variables and sandbox of Claude's user settings that config.toml does not set yet. */
export async function configPlan(places: MigrationPlaces, current: { readonly env: Readonly<Record<string, string>>; readonly sandboxModeSet: boolean }): Promise<ConfigPlan | null> {
  const source = path.join(places.userHome, ".claude", "settings.json");
  const settings = mergeSettings(await readJsonObject(source), await readJsonObject(path.join(places.userHome, ".claude", "settings.local.json")));
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(asObject(settings.env))) {
    if (key in current.env) continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") env[key] = String(value);
  }
  const sandboxMode = asObject(settings.sandbox).enabled === true && !current.sandboxModeSet ? "workspace-write" : null;
  return Object.keys(env).length > 0 || sandboxMode ? { source, env, sandboxMode } : null;
}

/** Claude's user MCP servers that can run here and whose names config.toml does not use yet. */
export async function mcpPlan(places: MigrationPlaces, configured: ReadonlySet<string>): Promise<McpPlan | null> {
  const sources = [path.join(places.userHome, ".claude.json"), path.join(places.userHome, ".mcp.json")];
  const servers: Record<string, McpServerConfig> = {};
  const used: string[] = [];
  for (const source of sources) {
    for (const [name, raw] of Object.entries(asObject((await readJsonObject(source)).mcpServers))) {
      if (configured.has(name) || name in servers || !/^[A-Za-z0-9_-]+$/.test(name)) continue;
      const server = convertMcpServer(asObject(raw));
      if (!server) continue;
      servers[name] = server;
      if (!used.includes(source)) used.push(source);
    }
  }
  return Object.keys(servers).length > 0 ? { sources: used, servers } : null;
}

/**
 * A Claude MCP server entry as a `[mcp_servers.<name>]` table, or null when it cannot be expressed
 * here: disabled, SSE, a `${VAR}` anywhere but a whole env value named after its own key (passed
 * through with `env_vars`), or HTTP headers other than `Authorization: Bearer ${VAR}`.
 */
export function convertMcpServer(raw: Record<string, unknown>): McpServerConfig | null {
  if (raw.enabled === false || raw.disabled === true) return null;
  const type = typeof raw.type === "string" ? raw.type : typeof raw.url === "string" ? "http" : "stdio";
  if (type === "stdio" && typeof raw.command === "string") {
    const args = Array.isArray(raw.args) && raw.args.every((arg) => typeof arg === "string") ? (raw.args as string[]) : [];
    if ([raw.command, ...args].some(hasPlaceholder)) return null;
    const env: Record<string, string> = {};
    const envVars: string[] = [];
    for (const [key, value] of Object.entries(asObject(raw.env))) {
      if (typeof value !== "string") return null;
      if (value === `\${${key}}`) envVars.push(key);
      else if (hasPlaceholder(value)) return null;
      else env[key] = value;
    }
    return {
      command: raw.command,
      ...(args.length > 0 ? { args } : {}),
      ...(Object.keys(env).length > 0 ? { env } : {}),
      ...(envVars.length > 0 ? { env_vars: envVars } : {}),
    };
  }
  if ((type === "http" || type === "streamable_http") && typeof raw.url === "string" && !hasPlaceholder(raw.url)) {
    let bearer: string | undefined;
    for (const [header, value] of Object.entries(asObject(raw.headers))) {
      const match = header.toLowerCase() === "authorization" && typeof value === "string" ? /^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value) : null;
      if (!match) return null;
      bearer = match[1];
    }
    return { url: raw.url, ...(bearer ? { bearer_token_env_var: bearer } : {}) };
  }
  return null;
}

/** `settings.local.json` over `settings.json`: its tables (`env`, `sandbox`) merged into the base's, key by key. */
function mergeSettings(base: Record<string, unknown>, local: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base };
  for (const [key, value] of Object.entries(local)) {
    const under = merged[key];
    merged[key] = isTable(under) && isTable(value) ? { ...under, ...value } : value;
  }
  return merged;
}

function hasPlaceholder(value: string): boolean {
  return value.includes("${");
}

function asObject(value: unknown): Record<string, unknown> {
  return isTable(value) ? value : {};
}

/** A JSON file's top-level object; a missing or unreadable file, or one that is not an object, is empty. */
async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  const text = await readText(file);
  if (text === null) return {};
  try {
    return asObject(JSON.parse(text));
  } catch {
    return {};
  }
}

/** Reads files of `repo` no further than the repository, and only what file modes let a sandboxed command read. */
async function repositoryReader(repo: string): Promise<(file: string) => Promise<string | null>> {
  const files = await ConfinedFs.create({ roots: [path.resolve(repo)], protectedPaths: [], hiddenPaths: SANDBOX_OWN_TREES, asSandbox: true });
  return (file) =>
    files
      .readFile(file, { maxBytes: MAX_SOURCE_BYTES })
      .then((bytes) => bytes.toString("utf8"))
      .catch(() => null);
}

async function readText(file: string): Promise<string | null> {
  return readRegularFile(file, MAX_SOURCE_BYTES)
    .then((bytes) => bytes.toString("utf8"))
    .catch(() => null);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}
