import type { z } from "zod";
import type { Config, ModelProviderConfig } from "../../config/schema.js";
import { ModelError } from "./modelError.js";

/** Which API a provider speaks. */
export type WireApi = "responses" | "chat" | "anthropic" | "gemini";

/** A model provider, resolved from config and the environment, ready to call. */
export interface ProviderSettings {
  readonly id: string;
  readonly name: string;
  readonly baseUrl: string;
  /** The API key, or null when the provider needs none. */
  readonly apiKey: string | null;
  /** The environment variable the key came from (named when the provider refuses it). */
  readonly apiKeyVariable: string | null;
  readonly wireApi: WireApi;
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly requestMaxRetries: number;
  readonly streamMaxRetries: number;
  readonly streamIdleTimeoutMs: number;
}

type ProviderTable = z.infer<typeof ModelProviderConfig>;

/** Codex's defaults for every provider. */
export const PROVIDER_DEFAULTS = { requestMaxRetries: 4, streamMaxRetries: 5, streamIdleTimeoutMs: 300_000 } as const;
// Codex caps both retry counts at 100 so a typo cannot retry forever.
const MAX_RETRIES = 100;

function builtInProviders(env: NodeJS.ProcessEnv): Record<string, ProviderTable> {
  return {
    openai: {
      name: "OpenAI",
      base_url: env.OPENAI_BASE_URL || "https://api.openai.com/v1",
      env_key: "OPENAI_API_KEY",
      wire_api: "responses",
    },
    ollama: { name: "Ollama", base_url: "http://localhost:11434/v1", wire_api: "chat" },
    // The SDKs add their API's version to these (`/v1/messages`, `/v1beta/models/…`).
    anthropic: {
      name: "Anthropic",
      base_url: env.ANTHROPIC_BASE_URL || "https://api.anthropic.com",
      env_key: "ANTHROPIC_API_KEY",
      wire_api: "anthropic",
    },
    google: {
      name: "Google Gemini",
      base_url: env.GOOGLE_GEMINI_BASE_URL || "https://generativelanguage.googleapis.com",
      env_key: GEMINI_KEYS[0],
      wire_api: "gemini",
    },
  };
}

/** Where the built-in `google` provider finds its key, in order: Google's SDK reads both. */
const GEMINI_KEYS = ["GEMINI_API_KEY", "GOOGLE_API_KEY"] as const;

/** The variables a key is read from: the table's `env_key`, and for the built-in `google` one its other name too. */
function keyVariables(id: string, envKey: string): readonly string[] {
  return id === "google" && envKey === GEMINI_KEYS[0] ? GEMINI_KEYS : [envKey];
}

/** The variable a provider's key is read from now: the first of its variables that is set, else its `env_key`. */
function keyVariableShown(id: string, envKey: string, env: NodeJS.ProcessEnv): string {
  return keyVariables(id, envKey).find((variable) => env[variable]) ?? envKey;
}

/**
 * The built-in provider a model's name implies when no provider is chosen: `claude-*` is
 * Anthropic's, `gemini-*` Google's, anything else OpenAI's (Codex's default).
 */
export function providerForModel(model: string): string {
  if (/^claude-/i.test(model)) return "anthropic";
  if (/^gemini-/i.test(model)) return "google";
  return "openai";
}

/**
 * Resolves provider `id` from `[model_providers.<id>]` (over the built-ins `openai`, `ollama`,
 * `anthropic` and `google`)
 * and the environment. Fails with a message naming what to set when the provider is unknown or
 * its API key variable is missing.
 */
export function resolveProvider(config: Config, id: string, env: NodeJS.ProcessEnv): ProviderSettings {
  const builtIn = builtInProviders(env)[id];
  const configured = config.model_providers?.[id];
  if (!builtIn && !configured) {
    const known = [...new Set([...Object.keys(builtInProviders(env)), ...Object.keys(config.model_providers ?? {})])];
    throw new ModelError(
      `Unknown model provider \`${id}\`; define [model_providers.${id}] in config.toml or use one of: ${known.join(", ")}.`,
      "fatal",
      "other",
    );
  }
  const table: ProviderTable = { ...builtIn, ...configured };
  if (!table.base_url) {
    throw new ModelError(`Model provider \`${id}\` has no base_url; set model_providers.${id}.base_url.`, "fatal", "other");
  }
  let apiKey: string | null = null;
  let apiKeyVariable: string | null = null;
  if (table.env_key) {
    const variables = keyVariables(id, table.env_key);
    apiKeyVariable = variables.find((variable) => env[variable]) ?? null;
    apiKey = apiKeyVariable ? env[apiKeyVariable]! : null;
    if (!apiKey) {
      const named = variables.map((variable) => `\`${variable}\``).join(" or ");
      throw new ModelError(
        `Missing environment variable: ${named}. Set it to the API key of model provider \`${id}\`, or choose another provider with \`model_provider\`.`,
        "fatal",
        "unauthorized",
      );
    }
  }
  const headers: Record<string, string> = { ...table.http_headers };
  for (const [header, variable] of Object.entries(table.env_http_headers ?? {})) {
    const value = env[variable];
    if (value) headers[header] = value;
  }
  return {
    id,
    name: table.name ?? id,
    baseUrl: table.base_url,
    apiKey,
    apiKeyVariable,
    wireApi: table.wire_api ?? "responses",
    headers,
    query: { ...table.query_params },
    requestMaxRetries: Math.min(table.request_max_retries ?? PROVIDER_DEFAULTS.requestMaxRetries, MAX_RETRIES),
    streamMaxRetries: Math.min(table.stream_max_retries ?? PROVIDER_DEFAULTS.streamMaxRetries, MAX_RETRIES),
    streamIdleTimeoutMs: table.stream_idle_timeout_ms ?? PROVIDER_DEFAULTS.streamIdleTimeoutMs,
  };
}

/** A provider as `modelProvider/list` shows it. */
export interface ProviderSummary {
  readonly id: string;
  readonly name: string;
  readonly baseUrl: string | null;
  readonly canEdit: boolean;
  readonly settings:
    | { readonly type: "openai" }
    | { readonly type: "customGateway"; readonly auth: { readonly mode: "none" } | { readonly mode: "environmentVariable"; readonly envKey: string } };
}

/**
 * Every provider a thread can use: the built-ins (`openai`, `ollama`, `anthropic`, `google`) and `[model_providers.*]`,
 * sorted by id; `editable`: the ids config.toml itself defines. OpenAI-compatible ones show as custom gateways with the variable their key comes
 * from; a base URL is shown without any credentials or query in it.
 */
export function providerSummaries(config: Config, env: NodeJS.ProcessEnv, editable: ReadonlySet<string> = new Set()): ProviderSummary[] {
  const builtIn = builtInProviders(env);
  const tables: Record<string, ProviderTable> = { ...builtIn };
  for (const [id, table] of Object.entries(config.model_providers ?? {})) tables[id] = { ...builtIn[id], ...table };
  return Object.entries(tables)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, table]) => ({
      id,
      name: table.name ?? id,
      baseUrl: displayableUrl(table.base_url),
      // modelProvider/config/write edits the custom providers of config.toml, never a built-in one.
      canEdit: editable.has(id) && !(id in builtIn),
      settings:
        id === "openai"
          ? { type: "openai" as const }
          : { type: "customGateway" as const, auth: table.env_key ? { mode: "environmentVariable" as const, envKey: keyVariableShown(id, table.env_key, env) } : { mode: "none" as const } },
    }));
}

/** A URL without the credentials, query or fragment it may hold; null when it does not parse. */
export function displayableUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return null;
  }
}
