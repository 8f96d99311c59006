import { isSecretEnvName } from "../agent/index.js";
import type { ConfigLayerValues } from "../config/layers.js";
import type { Config } from "../config/schema.js";
import { isTable } from "../config/tomlEdit.js";
import { knownSecrets, type KnownSecrets } from "./secretRedaction.js";

// Shorter values ("1", "true", "prod") would mask ordinary text all over the log.
const MIN_SECRET_LENGTH = 6;

/** The configuration as it changes (the server's ConfigStore, by shape). */
export interface ConfigSource {
  readonly current: Config;
  readonly layers: readonly ConfigLayerValues[];
}


/** The string values of a table, or none when `value` is not one. */
function stringsOf(value: unknown): string[] {
  return isTable(value) ? Object.values(value).filter((item): item is string => typeof item === "string") : [];
}

/** The tables inside a table (`[model_providers.*]`), or none when `value` is not one. */
function tablesOf(value: unknown): Record<string, unknown>[] {
  return isTable(value) ? Object.values(value).filter(isTable) : [];
}

/**
 * The secrets a config holds or names: its providers' `http_headers` and `query_params` values,
 * the variables their `env_key` and `env_http_headers` name, and MCP servers' bearer token variables.
 * Layers are read unvalidated, so every field is checked for its type.
 */
function configSecretValues(config: Record<string, unknown>, env: NodeJS.ProcessEnv): string[] {
  const fromEnv = (names: readonly unknown[]) => names.map((name) => (typeof name === "string" ? env[name] : undefined));
  const providers = tablesOf(config.model_providers).flatMap((table) => [
    ...stringsOf(table.http_headers),
    ...stringsOf(table.query_params),
    ...fromEnv([...stringsOf(table.env_http_headers), table.env_key]),
  ]);
  const mcp = tablesOf(config.mcp_servers).flatMap((table) => fromEnv([table.bearer_token_env_var]));
  return [...providers, ...mcp].filter((value): value is string => value !== undefined);
}

/** The values of environment variables named like secrets ({@link isSecretEnvName}). */
function secretEnvValues(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => isSecretEnvName(name) && value !== undefined)
    .map(([, value]) => value!);
}

/**
 * The secrets to mask in logs, as the config stands now: secret-named environment variables and
 * what the config holds or names. Recomputed only when the config changes.
 */
export function logSecrets(env: NodeJS.ProcessEnv, config: ConfigSource): () => KnownSecrets {
  const fromEnv = secretEnvValues(env);
  let cached: { config: Config; secrets: KnownSecrets } | undefined;
  return () => {
    if (cached?.config !== config.current) {
      // A layer's value that a higher layer overrides is still shown by `config/read`.
      const configs = [config.current as Record<string, unknown>, ...config.layers.map((layer) => layer.values)];
      const values = [...fromEnv, ...configs.flatMap((table) => configSecretValues(table, env))];
      cached = { config: config.current, secrets: knownSecrets(values.filter((value) => value.length >= MIN_SECRET_LENGTH)) };
    }
    return cached.secrets;
  };
}
