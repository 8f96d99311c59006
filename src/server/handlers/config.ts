import path from "node:path";
import { listModels } from "../../agent/model/modelCatalog.js";
import { configOrigins, layerIdentity, type ConfigLayerValues } from "../../config/layers.js";
import type { Config } from "../../config/schema.js";
import { DEFAULT_MODEL, DEFAULT_MODEL_PROVIDER } from "../../threads/settings.js";
import type { HandlerTable } from "../dispatcher.js";

/** What the configuration methods read. */
export interface ConfigDeps {
  readonly home: string;
  readonly config: Config;
  /** The layers merged into `config`, highest precedence first. */
  readonly layers: readonly ConfigLayerValues[] | undefined;
  readonly env: NodeJS.ProcessEnv;
}

type ConfigHandlers = Pick<HandlerTable, "model/list" | "config/read" | "configRequirements/read">;

/** `model/list`, `config/read` and `configRequirements/read`: what a client needs to show settings. */
export function configHandlers({ home, config, layers, env }: ConfigDeps): ConfigHandlers {
  const configLayers = layers ?? [{ source: { type: "user", file: path.join(home, "config.toml") }, values: config }];
  return {
    "model/list": async (params) => {
      const provider = params.modelProvider ?? config.model_provider ?? DEFAULT_MODEL_PROVIDER;
      const models = await listModels(config, provider, config.model ?? DEFAULT_MODEL, env);
      const start = params.cursor ? Number.parseInt(params.cursor, 10) || 0 : 0;
      const end = params.limit ? start + params.limit : models.length;
      return { data: models.slice(start, end), nextCursor: end < models.length ? String(end) : null };
    },
    "config/read": (params) => ({
      config,
      origins: configOrigins(configLayers),
      layers: params.includeLayers
        ? configLayers.map((layer) => ({ ...layerIdentity(layer), config: layer.values, disabledReason: null }))
        : null,
    }),
    "configRequirements/read": () => ({ requirements: null }),
  };
}
