/** `externalAgentConfig/*`: finding another coding agent's setup (Claude Code's) and importing it. */
import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** What can be migrated; this server detects AGENTS_MD, CONFIG, SKILLS and MCP_SERVER_CONFIG. */
export const MigrationItemType = lazySchema(() => z.enum(["AGENTS_MD", "CONFIG", "SKILLS", "PLUGINS", "MCP_SERVER_CONFIG", "SUBAGENTS", "HOOKS", "COMMANDS", "MEMORY", "SESSIONS"]));
export type MigrationItemType = z.infer<typeof MigrationItemType>;

const Named = lazySchema(() => z.object({ name: z.string() }));

/** Which parts of an item: the named skills, MCP servers, and so on. */
export const MigrationDetails = lazySchema(() => z.object({
  commands: z.array(Named).optional(),
  hooks: z.array(Named).optional(),
  mcpServers: z.array(Named).optional(),
  memory: z.array(z.string()).optional(),
  plugins: z.array(z.object({ marketplaceName: z.string(), pluginNames: z.array(z.string()) })).optional(),
  sessions: z.array(z.object({ cwd: z.string(), path: z.string(), title: z.string().nullable().optional() })).optional(),
  skills: z.array(Named).optional(),
  subagents: z.array(Named).optional(),
}));
export type MigrationDetails = z.infer<typeof MigrationDetails>;

/** One thing detect found that import can bring over; `cwd` null or empty: the user's home. */
export const MigrationItem = lazySchema(() => z.object({
  itemType: MigrationItemType,
  description: z.string(),
  cwd: z.string().nullable().optional(),
  details: MigrationDetails.nullable().optional(),
}));
export type MigrationItem = z.infer<typeof MigrationItem>;

/** Params of `externalAgentConfig/detect`. */
export const ExternalAgentConfigDetectParams = lazySchema(() => z.object({
  cwds: z.array(z.string()).nullable().optional(),
  includeHome: z.boolean().optional(),
  maxSessionAgeDays: z.number().int().nonnegative().nullable().optional(),
  maxSessions: z.number().int().nonnegative().nullable().optional(),
  migrationSource: z.string().nullable().optional(),
  source: z.string().nullable().optional(),
}));

/** Result of `externalAgentConfig/detect`. */
export const ExternalAgentConfigDetectResponse = lazySchema(() => z.object({
  items: z.array(MigrationItem),
  connectors: z.array(z.object({ name: z.string(), sessionCount: z.number().int(), source: z.enum(["remoteMcpServersConfig", "sessionToolUse"]) })).optional(),
}));

/** Params of `externalAgentConfig/import`: items as detect returned them. */
export const ExternalAgentConfigImportParams = lazySchema(() => z.object({
  migrationItems: z.array(MigrationItem),
  migrationSource: z.string().nullable().optional(),
  providerId: z.string().nullable().optional(),
  source: z.string().nullable().optional(),
}));

/** Result of `externalAgentConfig/import` (and of `import/recordHistory`). */
export const ExternalAgentConfigImportResponse = lazySchema(() => z.object({ importId: z.string() }));

/** One thing brought over. */
export const ImportSuccess = lazySchema(() => z.object({
  itemType: MigrationItemType,
  cwd: z.string().nullable().optional(),
  source: z.string().nullable().optional(),
  target: z.string().nullable().optional(),
  title: z.string().nullable().optional(),
}));
export type ImportSuccess = z.infer<typeof ImportSuccess>;

/** One thing that could not be brought over, and why. */
export const ImportFailure = lazySchema(() => z.object({
  itemType: MigrationItemType,
  cwd: z.string().nullable().optional(),
  source: z.string().nullable().optional(),
  failureStage: z.string(),
  errorType: z.string().nullable().optional(),
  subErrorType: z.string().nullable().optional(),
  message: z.string(),
}));
export type ImportFailure = z.infer<typeof ImportFailure>;

/** The outcome for one item type. */
export const ImportTypeResult = lazySchema(() => z.object({ itemType: MigrationItemType, successes: z.array(ImportSuccess), failures: z.array(ImportFailure) }));
export type ImportTypeResult = z.infer<typeof ImportTypeResult>;

/** `externalAgentConfig/import/progress` and `/completed`: results so far, or all of them. */
export const ExternalAgentConfigImportResultsNotification = lazySchema(() => z.object({ importId: z.string(), itemTypeResults: z.array(ImportTypeResult) }));

/** Params of `externalAgentConfig/import/recordHistory`: an import a client did itself. */
export const ExternalAgentConfigImportHistoryRecordParams = lazySchema(() => z.object({ providerId: z.string(), itemTypeResults: z.array(ImportTypeResult) }));

/** One recorded import. */
export const ImportHistory = lazySchema(() => z.object({
  importId: z.string(),
  providerId: z.string().nullable().optional(),
  completedAtMs: z.number().int(),
  successes: z.array(ImportSuccess),
  failures: z.array(ImportFailure),
}));
export type ImportHistory = z.infer<typeof ImportHistory>;

/** Result of `externalAgentConfig/import/readHistories`. */
export const ExternalAgentConfigImportHistoriesReadResponse = lazySchema(() => z.object({
  data: z.array(ImportHistory),
  connectors: z.array(z.object({ name: z.string(), sessionCount: z.number().int(), source: z.literal("remoteMcpServersConfig") })),
}));
