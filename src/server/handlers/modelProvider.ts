import { effectiveSettings, providerSummaries } from "../../agent/index.js";
import { invalidRequest } from "../../protocol/errors.js";
import type { HandlerTable } from "../dispatcher.js";
import type { ModelDeps } from "./model.js";

/** The ids `[model_providers.*]` of config.toml defines (the ones a client may edit). */
function userProviderIds(deps: ModelDeps): Set<string> {
  const user = deps.store.layers.find((layer) => layer.source.type === "user")?.values as { model_providers?: Record<string, unknown> } | undefined;
  return new Set(Object.keys(user?.model_providers ?? {}));
}

/** A free id for a new provider, from its name (`My Gateway` → `my-gateway`, then `my-gateway-2`, …). */
function newProviderId(name: string, taken: ReadonlySet<string>): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "custom";
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

/**
 * `modelProvider/list` (every provider a thread can use, and the configured default),
 * `modelProvider/capabilities/read`, and `modelProvider/config/write` (an OpenAI-compatible
 * gateway in config.toml's `[model_providers.<id>]`; Bedrock and GCP are not supported here).
 */
export function modelProviderHandlers(deps: ModelDeps): Pick<HandlerTable, "modelProvider/list" | "modelProvider/capabilities/read" | "modelProvider/config/write"> {
  const { store, host } = deps;
  const summaries = () => providerSummaries(store.current, host.env, userProviderIds(deps));
  return {
    "modelProvider/list": () => ({
      data: summaries(),
      defaultProviderId: effectiveSettings(store.current, null, {}, host).modelProvider,
      // The default is the config's `model_provider`, which config/value/write changes.
      canChangeDefault: true,
    }),
    // This server offers neither hosted web search nor image generation to the model.
    "modelProvider/capabilities/read": () => ({ imageGeneration: false, webSearch: false }),
    "modelProvider/config/write": async (params) => {
      const settings = params.settings;
      if (settings.type !== "customGateway") throw invalidRequest(`${settings.type} providers are not supported by agent-app-server; configure an OpenAI-compatible gateway (customGateway)`);
      const gateway = settings as { providerId?: string | null; name?: string; baseUrl?: string | null; envKey?: string | null };
      const known = new Set(summaries().map((provider) => provider.id));
      const editable = userProviderIds(deps);
      let id = gateway.providerId ?? null;
      if (id !== null && !editable.has(id)) {
        throw invalidRequest(known.has(id) ? `provider ${id} is built in or set by a flag; only config.toml's own providers can be edited` : `no provider ${id} in config.toml`);
      }
      if (id === null) {
        if (!gateway.name) throw invalidRequest("a new provider needs a name");
        if (!gateway.baseUrl) throw invalidRequest("a new provider needs a baseUrl");
        id = newProviderId(gateway.name, known);
      }
      // Omitted fields keep their values; null clears one (a null edit removes the key); all in one write.
      const fields: Array<[string, string | null | undefined]> = [
        ["name", gateway.name],
        ["base_url", gateway.baseUrl],
        ["env_key", gateway.envKey],
      ];
      const edits = fields
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => ({ keyPath: `model_providers.${id}.${key}`, value, mergeStrategy: "replace" as const }));
      try {
        await store.write(edits, null);
      } catch (error) {
        throw invalidRequest(`modelProvider/config/write failed: ${(error as Error).message}`);
      }
      return { provider: summaries().find((provider) => provider.id === id)! };
    },
  };
}
