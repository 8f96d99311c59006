import { effectiveSettings, listModels, type Host } from "../../agent/index.js";
import type { ConfigStore } from "../../config/configStore.js";
import type { Logger } from "../../runtime/logger.js";
import type { HandlerTable } from "../dispatcher.js";

/** What model/list reads: the current config, and the environment API keys come from. */
export interface ModelDeps {
  readonly store: ConfigStore;
  readonly host: Host;
  /** The environment providers take their keys from now (a key a client logged in with included). */
  readonly providerEnv: () => NodeJS.ProcessEnv;
}

/** What model/list needs besides {@link ModelDeps}: where to warn about a provider that cannot list its models. */
export interface ModelListDeps extends ModelDeps {
  readonly logger: Logger;
}

/**
 * `model/list`: the models the provider (the configured one unless `modelProvider` names another)
 * lists, the configured model first, hidden ones only with `includeHidden`; paged by index.
 */
export function modelHandlers({ store, host, providerEnv, logger }: ModelListDeps): Pick<HandlerTable, "model/list"> {
  return {
    "model/list": async (params) => {
      const config = store.current;
      const configured = effectiveSettings(config, null, {}, host);
      const provider = params.modelProvider ?? configured.modelProvider;
      const listed = await listModels(config, provider, configured.model, providerEnv(), logger);
      const models = params.includeHidden ? listed : listed.filter((model) => !model.hidden);
      const start = params.cursor ? Number.parseInt(params.cursor, 10) || 0 : 0;
      const end = params.limit ? start + params.limit : models.length;
      return { data: models.slice(start, end), nextCursor: end < models.length ? String(end) : null };
    },
  };
}
