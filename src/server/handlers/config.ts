import { ConfigWriteError, type ConfigEdit, type ConfigStore } from "../../config/configStore.js";
import { configOrigins, layerIdentity } from "../../config/layers.js";
import { invalidRequest, rpcError, type RpcError } from "../../protocol/errors.js";
import { ErrorCode } from "../../protocol/jsonrpc.js";
import type { HandlerTable } from "../dispatcher.js";

/** What the configuration methods read and write. */
export interface ConfigDeps {
  readonly store: ConfigStore;
  /** Restarts the MCP servers whose config changed (`config/mcpServer/reload`). */
  readonly reloadMcpServers: () => Promise<void>;
}

type ConfigHandlers = Pick<
  HandlerTable,
  "config/read" | "configRequirements/read" | "config/value/write" | "config/batchWrite" | "config/mcpServer/reload"
>;

/** `config/read`, `configRequirements/read` and the config writes. */
export function configHandlers({ store, reloadMcpServers }: ConfigDeps): ConfigHandlers {
  const write = async (edits: readonly ConfigEdit[], filePath: string | null | undefined, expectedVersion: string | null | undefined) => {
    if (filePath && filePath !== store.file) throw invalidRequest(`only the user config ${store.file} can be written, not ${filePath}`);
    try {
      const { version, overridden } = await store.write(edits, expectedVersion);
      if (!overridden) return { status: "ok" as const, version, filePath: store.file, overriddenMetadata: null };
      return {
        status: "okOverridden" as const,
        version,
        filePath: store.file,
        overriddenMetadata: {
          message: `written to ${store.file}, but \`${overridden.keyPath}\` is set by a -c flag of this server, which stays in effect`,
          overridingLayer: overridden.by,
          effectiveValue: overridden.effectiveValue,
        },
      };
    } catch (error) {
      throw error instanceof ConfigWriteError ? writeError(error) : error;
    }
  };
  return {
    "config/read": (params) => ({
      config: store.current,
      origins: configOrigins(store.layers),
      layers: params.includeLayers
        ? store.layers.map((layer) => ({ ...layerIdentity(layer), config: layer.values, disabledReason: null }))
        : null,
    }),
    "configRequirements/read": () => ({ requirements: null }),
    "config/value/write": (params) => write([params], params.filePath, params.expectedVersion),
    "config/batchWrite": (params) => write(params.edits, params.filePath, params.expectedVersion),
    // As in Codex: re-reads `[mcp_servers]`, restarts what changed, and answers once that is under way.
    "config/mcpServer/reload": async () => {
      await reloadMcpServers();
      return {};
    },
  };
}

/** A bad value or key path is the request's fault (-32602); a version conflict is the state's (-32600). */
function writeError(error: ConfigWriteError): RpcError {
  return error.kind === "versionConflict" ? invalidRequest(error.message) : rpcError(ErrorCode.InvalidParams, error.message, { issues: error.issues });
}
