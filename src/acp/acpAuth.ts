import { providerSummaries } from "../agent/index.js";
import type { AppServerClient } from "../client/index.js";
import type { Config } from "../config/schema.js";
import { RequestError, type AuthMethod } from "../vendor/acp.js";

/** A provider that takes an API key, and the variable it reads it from. */
interface KeyedProvider {
  readonly id: string;
  readonly name: string;
  readonly envKey: string;
}

function keyedProviders(config: Config, env: NodeJS.ProcessEnv): KeyedProvider[] {
  return providerSummaries(config, env).flatMap((provider) => {
    if (provider.settings.type === "openai") return [{ id: provider.id, name: provider.name, envKey: "OPENAI_API_KEY" }];
    const { auth } = provider.settings;
    return auth.mode === "environmentVariable" ? [{ id: provider.id, name: provider.name, envKey: auth.envKey }] : [];
  });
}

/** One API-key method per configured provider that takes a key (a local model takes none). */
export function authMethods(config: Config, env: NodeJS.ProcessEnv = process.env): AuthMethod[] {
  return keyedProviders(config, env).map(({ id, name, envKey }) => ({
    id,
    name: `${name} API key`,
    description: `Reads the key from ${envKey} in the environment the editor starts the agent with`,
  }));
}

/**
 * `authenticate`: whether the method's provider has its key (the variable set; for OpenAI, a key
 * stored by a login too). Throws ACP's auth-required error naming the variable to set.
 */
export async function checkAuthenticated(methodId: string, config: Config, client: AppServerClient, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const provider = keyedProviders(config, env).find((entry) => entry.id === methodId);
  if (!provider) throw RequestError.invalidParams({ methodId }, `no authentication method ${methodId}`);
  if (env[provider.envKey]) return;
  if (provider.id === "openai" && (await client.request("account/read", {})).account) return;
  throw RequestError.authRequired({ methodId }, `set ${provider.envKey} in the environment the editor starts agent-app-server with`);
}
