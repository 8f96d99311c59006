import type { ImportHistoryStore } from "../../config/externalAgent/importHistory.js";
import { detectMigrations, importMigration, type ItemOutcome, type MigrationDeps } from "../../config/externalAgent/migration.js";
import type { ImportTypeResult } from "../../protocol/externalAgentMethods.js";
import type { Clock } from "../../runtime/clock.js";
import type { ClientHub } from "../clientHub.js";
import type { HandlerTable } from "../dispatcher.js";
import { respond } from "./respond.js";

type ExternalAgentConfigHandlers = Pick<
  HandlerTable,
  "externalAgentConfig/detect" | "externalAgentConfig/import" | "externalAgentConfig/import/recordHistory" | "externalAgentConfig/import/readHistories"
>;

/** What the external-agent methods need. */
export interface ExternalAgentConfigDeps {
  readonly migration: MigrationDeps;
  readonly history: ImportHistoryStore;
  readonly hub: ClientHub;
  readonly clock: Clock;
  readonly newId: () => string;
  /** Restarts the MCP servers whose config changed. */
  readonly reloadMcpServers: () => Promise<void>;
}

/**
 * `externalAgentConfig/*`: Claude Code's setup detected and imported (see config/externalAgent/).
 * As Codex, import does its work before answering `{importId}`, then tells the requester each
 * item's result (`import/progress`) and all of them (`import/completed`), and records the import.
 */
export function externalAgentConfigHandlers(deps: ExternalAgentConfigDeps): ExternalAgentConfigHandlers {
  return {
    "externalAgentConfig/detect": async (params) => ({
      items: await detectMigrations(deps.migration, { includeHome: params.includeHome ?? false, cwds: params.cwds ?? [], migrationSource: params.migrationSource ?? null }),
      // Connectors come from imported sessions' tool use, and sessions are not imported here.
      connectors: [],
    }),
    "externalAgentConfig/import": async (params, context) => {
      const importId = deps.newId();
      if (params.migrationItems.length === 0) return { importId };
      const outcomes: ItemOutcome[] = [];
      for (const item of params.migrationItems) outcomes.push(await importMigration(deps.migration, item));
      const configChanged = outcomes.some((outcome) => outcome.itemType === "MCP_SERVER_CONFIG" && outcome.successes.length > 0);
      if (configChanged) await deps.reloadMcpServers();
      const grouped = byType(outcomes);
      await deps.history.record({
        importId,
        providerId: params.providerId ?? null,
        completedAtMs: deps.clock.nowMs(),
        successes: grouped.flatMap((result) => result.successes),
        failures: grouped.flatMap((result) => result.failures),
      });
      return respond(context, {
        result: { importId },
        after: () => {
          for (const outcome of outcomes) deps.hub.emit([context.connection], "externalAgentConfig/import/progress", { importId, itemTypeResults: [outcome] });
          deps.hub.emit([context.connection], "externalAgentConfig/import/completed", { importId, itemTypeResults: grouped });
        },
      });
    },
    "externalAgentConfig/import/recordHistory": async (params) => {
      const importId = deps.newId();
      await deps.history.record({
        importId,
        providerId: params.providerId,
        completedAtMs: deps.clock.nowMs(),
        successes: params.itemTypeResults.flatMap((result) => result.successes),
        failures: params.itemTypeResults.flatMap((result) => result.failures),
      });
      return { importId };
    },
    "externalAgentConfig/import/readHistories": () => ({ data: deps.history.list(), connectors: [] }),
  };
}

/** The outcomes merged per item type, in the order the types first appear. */
function byType(outcomes: readonly ItemOutcome[]): ImportTypeResult[] {
  const results = new Map<string, ImportTypeResult>();
  for (const outcome of outcomes) {
    const result = results.get(outcome.itemType) ?? { itemType: outcome.itemType, successes: [], failures: [] };
    result.successes.push(...outcome.successes);
    result.failures.push(...outcome.failures);
    results.set(outcome.itemType, result);
  }
  return [...results.values()];
}
