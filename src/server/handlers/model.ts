import { listModels } from "../../agent/model/modelCatalog.js";
import { DEFAULT_MODEL, DEFAULT_MODEL_PROVIDER } from "../../threads/settings.js";
import type { HandlerTable } from "../dispatcher.js";
import type { ConfigDeps } from "./config.js";

/** `model/list`: the configured provider's models (the configured model first), paged by index. */
export function modelHandlers({ store, env }: ConfigDeps): Pick<HandlerTable, "model/list"> {
  return {
    "model/list": async (params) => {
      const config = store.current;
      const provider = params.modelProvider ?? config.model_provider ?? DEFAULT_MODEL_PROVIDER;
      const models = await listModels(config, provider, config.model ?? DEFAULT_MODEL, env);
      const start = params.cursor ? Number.parseInt(params.cursor, 10) || 0 : 0;
      const end = params.limit ? start + params.limit : models.length;
      return { data: models.slice(start, end), nextCursor: end < models.length ? String(end) : null };
    },
  };
}
