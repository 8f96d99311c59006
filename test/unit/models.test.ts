import { describe, expect, it } from "vitest";
import { ModelError } from "../../src/agent/model/modelError.js";
import { resolveProvider } from "../../src/agent/model/providers.js";
import { backoffMs, retryDelayMs } from "../../src/agent/model/sampling.js";
import { parseMockScript } from "../../src/testing/index.js";

describe("retry timing", () => {
  it("backs off 200 ms doubling, within ±10 %", () => {
    expect([1, 2, 3, 4].map((attempt) => backoffMs(attempt, () => 0.5))).toEqual([200, 400, 800, 1600]);
    expect(backoffMs(1, () => 0)).toBeCloseTo(180);
    expect(backoffMs(1, () => 1)).toBeCloseTo(220);
  });

  it("prefers the server's Retry-After", () => {
    const error = new ModelError("429", "request", "rateLimitExceeded", { status: 429, retryAfterMs: 3000 });
    expect(retryDelayMs(error, 1)).toBe(3000);
  });
});

describe("model providers", () => {
  it("has Codex's defaults and built-ins", () => {
    const openai = resolveProvider({}, "openai", { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" });
    expect(openai).toMatchObject({
      baseUrl: "http://127.0.0.1:1/v1",
      apiKey: "sk-test",
      wireApi: "responses",
      requestMaxRetries: 4,
      streamMaxRetries: 5,
      streamIdleTimeoutMs: 300_000,
    });
    expect(resolveProvider({}, "ollama", {})).toMatchObject({ baseUrl: "http://localhost:11434/v1", wireApi: "chat", apiKey: null });
  });

  it("has Anthropic and Google built in, with their keys' variables and base URLs that can be overridden", () => {
    expect(resolveProvider({}, "anthropic", { ANTHROPIC_API_KEY: "a" })).toMatchObject({
      baseUrl: "https://api.anthropic.com",
      wireApi: "anthropic",
      apiKey: "a",
      apiKeyVariable: "ANTHROPIC_API_KEY",
    });
    expect(resolveProvider({}, "anthropic", { ANTHROPIC_API_KEY: "a", ANTHROPIC_BASE_URL: "http://gw/anthropic" }).baseUrl).toBe("http://gw/anthropic");
    expect(resolveProvider({}, "google", { GOOGLE_API_KEY: "g" })).toMatchObject({
      baseUrl: "https://generativelanguage.googleapis.com",
      wireApi: "gemini",
      apiKey: "g",
      apiKeyVariable: "GOOGLE_API_KEY",
    });
    expect(resolveProvider({}, "google", { GOOGLE_API_KEY: "g", GEMINI_API_KEY: "first" }).apiKey).toBe("first");
    expect(() => resolveProvider({}, "google", {})).toThrow("Missing environment variable: `GEMINI_API_KEY` or `GOOGLE_API_KEY`.");
    // A table with a built-in's id overrides its keys.
    const mine = resolveProvider({ model_providers: { anthropic: { base_url: "http://127.0.0.1:3", env_key: "MY_CLAUDE_KEY" } } }, "anthropic", { MY_CLAUDE_KEY: "m" });
    expect(mine).toMatchObject({ baseUrl: "http://127.0.0.1:3", wireApi: "anthropic", apiKey: "m", apiKeyVariable: "MY_CLAUDE_KEY" });
  });

  it("reads [model_providers.<id>] with headers from the environment, and caps retries", () => {
    const provider = resolveProvider(
      {
        model_providers: {
          local: {
            base_url: "http://127.0.0.1:2/v1",
            wire_api: "chat",
            env_key: "LOCAL_KEY",
            http_headers: { "x-a": "1" },
            env_http_headers: { "x-b": "B_VALUE" },
            query_params: { "api-version": "2025" },
            request_max_retries: 1000,
          },
        },
      },
      "local",
      { LOCAL_KEY: "k", B_VALUE: "2" },
    );
    expect(provider).toMatchObject({ apiKey: "k", headers: { "x-a": "1", "x-b": "2" }, query: { "api-version": "2025" }, requestMaxRetries: 100 });
  });

  it("names the variable to set when the key is missing, and the providers when the id is unknown", () => {
    expect(() => resolveProvider({}, "openai", {})).toThrow(/Missing environment variable: `OPENAI_API_KEY`/);
    expect(() => resolveProvider({}, "nope", {})).toThrow(/Unknown model provider `nope`.*openai, ollama/);
  });
});

describe("mock model scripts", () => {
  it("names the bad entry", () => {
    expect(() => parseMockScript({ model: [{ items: [] }, { items: [{ type: "mesage" }] }] })).toThrow(/model\[1\]\.items\[0\]\.type/);
    expect(() => parseMockScript([{ httpStatus: 200 }])).toThrow(/\[0\]\.httpStatus/);
    expect(parseMockScript({ responses: [{ items: [{ type: "message", text: "hi" }] }] })).toHaveLength(1);
  });
});
