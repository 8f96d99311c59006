import { effectiveSettings, providerSummaries } from "../../agent/index.js";
import type { HandlerTable } from "../dispatcher.js";
import type { ModelDeps } from "./model.js";

/** `modelProvider/list` (every provider a thread can use, and the configured default) and `modelProvider/capabilities/read`. */
export function modelProviderHandlers({ store, host }: ModelDeps): Pick<HandlerTable, "modelProvider/list" | "modelProvider/capabilities/read"> {
  return {
    "modelProvider/list": () => ({
      data: providerSummaries(store.current, host.env),
      defaultProviderId: effectiveSettings(store.current, null, {}, host).modelProvider,
      // The default is the config's `model_provider`, which config/value/write changes.
      canChangeDefault: true,
    }),
    // This server offers neither hosted web search nor image generation to the model.
    "modelProvider/capabilities/read": () => ({ imageGeneration: false, webSearch: false }),
  };
}
