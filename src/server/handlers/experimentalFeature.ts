import { CODEX_FEATURES } from "../../config/codexKeys.js";
import type { ConfigStore } from "../../config/configStore.js";
import { FEATURES } from "../../config/features.js";
import { invalidRequest } from "../../protocol/errors.js";
import { offsetPage } from "../../threads/paging.js";
import type { HandlerTable } from "../dispatcher.js";

/**
 * `experimentalFeature/list` (the flags this server acts on, on or off in the config now) and
 * `experimentalFeature/enablement/set` (switches for the rest of the process, over config.toml and
 * the flags, never written to the file; any of Codex's feature names is accepted).
 */
export function experimentalFeatureHandlers(store: ConfigStore): Pick<HandlerTable, "experimentalFeature/list" | "experimentalFeature/enablement/set"> {
  return {
    "experimentalFeature/list": (params) => {
      const features = store.current.features ?? {};
      const data = FEATURES.map(({ name, stage, defaultEnabled, displayName, description }) => {
        const set = (features as Record<string, unknown>)[name];
        return { name, stage, defaultEnabled, enabled: typeof set === "boolean" ? set : defaultEnabled, displayName, description, announcement: null };
      });
      return offsetPage(data, params.cursor, params.limit);
    },
    "experimentalFeature/enablement/set": async (params) => {
      const unknown = Object.keys(params.enablement).find((name) => !CODEX_FEATURES.has(name));
      if (unknown !== undefined) throw invalidRequest(`unknown feature: ${unknown}`);
      await store.setFeatures(params.enablement);
      return { enablement: params.enablement };
    },
  };
}
