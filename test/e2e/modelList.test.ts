import net from "node:net";
import { describe, expect, it } from "vitest";
import { startMockModel, type MockModel, type MockModelOptions } from "../../src/testing/index.js";
import { closedPort } from "../support/ports.js";
import { ServerProcess } from "../support/serverProcess.js";
import { mocks, servers } from "../support/turnHarness.js";

// Keys of the machine running the tests must not reach the server under test.
const NO_KEYS = { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", GEMINI_API_KEY: "", GOOGLE_API_KEY: "", ANTHROPIC_BASE_URL: "", GOOGLE_GEMINI_BASE_URL: "" };

async function mockListing(options: MockModelOptions): Promise<MockModel> {
  const mock = await startMockModel(options);
  mocks.push(mock);
  return mock;
}

/** A server with `model` on `provider`, `-c` flags and environment on top, initialized. */
async function serve(provider: string, model: string, flags: string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const server = ServerProcess.start({
    args: ["app-server", "-c", `model_provider="${provider}"`, "-c", `model="${model}"`, ...flags],
    env: { ...NO_KEYS, ...env },
  });
  servers.push(server);
  await server.initialize();
  return server;
}

async function modelList(server: ServerProcess, params: object = {}): Promise<any[]> {
  const response = await server.request("model/list", { includeHidden: true, ...params });
  expect(response.error).toBeUndefined();
  return response.result.data;
}

describe("model/list", () => {
  it("lists an OpenAI-compatible provider's chat models over every page, with its key, and reuses the list", async () => {
    const mock = await mockListing({
      models: ["whisper-1", "qwen3", "text-embedding-3-small", "gpt-5.5-mini", "nomic-embed-text:latest", "tts-1", "dall-e-3", "llama3.3"],
      modelsPageSize: 3,
    });
    const table = `{name="Gateway",base_url="${mock.url}",env_key="GATEWAY_KEY",wire_api="chat"}`;
    const server = await serve("gw", "qwen3", ["-c", `model_providers.gw=${table}`], { GATEWAY_KEY: "sk-gateway" });

    const models = await modelList(server);
    expect(models.map((model) => model.id)).toEqual(["qwen3", "gpt-5.5-mini", "llama3.3"]);
    expect(models.map((model) => [model.isDefault, model.displayName, model.description])).toEqual([
      [true, "qwen3", "qwen3 (configured)"],
      [false, "GPT-5.5-mini", "GPT-5.5-mini from Gateway"],
      [false, "llama3.3", "llama3.3 from Gateway"],
    ]);
    expect(models[1]).toMatchObject({ hidden: false, inputModalities: ["text", "image"], defaultReasoningEffort: "medium" });
    expect(models[1].supportedReasoningEfforts.map((effort: any) => effort.reasoningEffort)).toEqual(["low", "medium", "high"]);
    expect(mock.modelListRequests.map((request) => [request.path, request.query.after ?? null])).toEqual([
      ["/v1/models", null],
      ["/v1/models", "text-embedding-3-small"],
      ["/v1/models", "tts-1"],
    ]);
    expect(mock.modelListRequests.map((request) => request.headers.authorization)).toEqual(Array(3).fill("Bearer sk-gateway"));

    // A picker opened again within the minute: the same list, no new request.
    expect(await modelList(server)).toEqual(models);
    expect(mock.modelListRequests).toHaveLength(3);
    // Paging of model/list itself still works over the cached list.
    const page = await server.request("model/list", { limit: 2 });
    expect(page.result.data.map((model: any) => model.id)).toEqual(["qwen3", "gpt-5.5-mini"]);
    expect(page.result.nextCursor).toBe("2");
  });

  it("lists Anthropic's models in its own format: x-api-key, anthropic-version, after_id paging", async () => {
    const mock = await mockListing({
      models: [
        { id: "claude-opus-4-1", displayName: "Claude Opus 4.1", inputTokenLimit: 200_000 },
        { id: "claude-sonnet-4-5", displayName: "Claude Sonnet 4.5" },
        { id: "claude-haiku-4-5", displayName: "Claude Haiku 4.5" },
      ],
      modelsPageSize: 2,
    });
    const server = await serve("anthropic", "claude-sonnet-4-5", [], { ANTHROPIC_BASE_URL: mock.origin, ANTHROPIC_API_KEY: "sk-ant-test" });

    const models = await modelList(server);
    // The configured model first, then the provider's own order (newest first at Anthropic).
    expect(models.map((model) => [model.id, model.displayName, model.isDefault])).toEqual([
      ["claude-sonnet-4-5", "Claude Sonnet 4.5", true],
      ["claude-opus-4-1", "Claude Opus 4.1", false],
      ["claude-haiku-4-5", "Claude Haiku 4.5", false],
    ]);
    expect(models[0].description).toBe("Claude Sonnet 4.5 (configured)");
    expect(models[1].description).toBe("Claude Opus 4.1 from Anthropic. Context window: 200K tokens.");
    expect(models[1].inputModalities).toEqual(["text", "image"]);
    expect(models[0].supportedReasoningEfforts.map((effort: any) => effort.reasoningEffort)).toEqual(["low", "medium", "high", "xhigh"]);
    expect(mock.modelListRequests.map((request) => [request.path, request.query])).toEqual([
      ["/v1/models", { limit: "1000" }],
      ["/v1/models", { limit: "1000", after_id: "claude-sonnet-4-5" }],
    ]);
    for (const { headers } of mock.modelListRequests) {
      expect(headers).toMatchObject({ "x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01" });
      expect(headers.authorization).toBeUndefined();
    }
  });

  it("lists Gemini's chat models in its own format: x-goog-api-key, pageToken paging, no embedding/AQA/Imagen/TTS", async () => {
    const mock = await mockListing({
      models: [
        { id: "gemini-2.5-pro", displayName: "Gemini 2.5 Pro", inputTokenLimit: 1_048_576 },
        { id: "gemini-embedding-001", displayName: "Gemini Embedding 001", methods: ["embedContent", "countTextTokens"] },
        { id: "aqa", displayName: "Model that performs Attributed Question Answering.", methods: ["generateAnswer"] },
        { id: "gemini-2.5-flash", displayName: "Gemini 2.5 Flash" },
        { id: "imagen-4.0-generate-001", displayName: "Imagen 4", methods: ["predict"] },
        { id: "gemini-2.5-flash-preview-tts", displayName: "Gemini 2.5 Flash Preview TTS" },
      ],
      modelsPageSize: 4,
    });
    const server = await serve("google", "gemini-2.5-flash", [], { GOOGLE_GEMINI_BASE_URL: mock.origin, GEMINI_API_KEY: "g-key" });

    const models = await modelList(server);
    expect(models.map((model) => [model.id, model.displayName, model.isDefault])).toEqual([
      ["gemini-2.5-flash", "Gemini 2.5 Flash", true],
      ["gemini-2.5-pro", "Gemini 2.5 Pro", false],
    ]);
    expect(models[0].description).toBe("Gemini 2.5 Flash (configured). Context window: 33K tokens.");
    expect(models[1].description).toBe("The mock's gemini-2.5-pro. Context window: 1M tokens.");
    expect(models[1].inputModalities).toEqual(["text", "image"]);
    expect(mock.modelListRequests.map((request) => [request.path, request.query])).toEqual([
      ["/v1beta/models", { pageSize: "1000" }],
      ["/v1beta/models", { pageSize: "1000", pageToken: "page-4" }],
    ]);
    expect(mock.modelListRequests.map((request) => request.headers["x-goog-api-key"])).toEqual(["g-key", "g-key"]);
  });

  it("lists the provider `modelProvider` names, the configured model still the one default", async () => {
    const mock = await mockListing({ models: ["gpt-5.5-mini", { id: "claude-haiku-4-5", displayName: "Claude Haiku 4.5" }] });
    const table = `{name="mock",base_url="${mock.url}",wire_api="responses"}`;
    const server = await serve("mock", "gpt-5.5", ["-c", `model_providers.mock=${table}`], { ANTHROPIC_BASE_URL: mock.origin, ANTHROPIC_API_KEY: "sk-ant-test" });

    const own = await modelList(server);
    expect(own.map((model) => model.id)).toEqual(["gpt-5.5", "claude-haiku-4-5", "gpt-5.5-mini"]);
    const anthropic = await modelList(server, { modelProvider: "anthropic" });
    expect(anthropic.map((model) => [model.id, model.displayName, model.isDefault])).toEqual([
      ["gpt-5.5", "GPT-5.5", true],
      ["gpt-5.5-mini", "gpt-5.5-mini", false],
      ["claude-haiku-4-5", "Claude Haiku 4.5", false],
    ]);
    expect(mock.modelListRequests.map((request) => [request.path, request.headers["anthropic-version"] ?? null])).toEqual([
      ["/v1/models", null],
      ["/v1/models", "2023-06-01"],
    ]);
  });

  it("answers with the configured model alone, and warns in the log, when the provider is unreachable, silent or has no key", async () => {
    const silent = net.createServer(() => undefined).listen(0, "127.0.0.1");
    await new Promise((resolve) => silent.once("listening", resolve));
    try {
      const unreachable = `{name="down",base_url="http://127.0.0.1:${await closedPort()}/v1",wire_api="chat"}`;
      const hanging = `{name="silent",base_url="http://127.0.0.1:${(silent.address() as net.AddressInfo).port}",wire_api="gemini"}`;
      const server = await serve("down", "qwen3", ["-c", `model_providers.down=${unreachable}`, "-c", `model_providers.silent=${hanging}`]);
      const expected = [expect.objectContaining({ id: "qwen3", displayName: "qwen3", description: "qwen3 (configured)", isDefault: true })];

      expect(await modelList(server)).toEqual(expected);
      await server.waitForStderr("could not list the provider's models");
      expect(server.stderr).toContain('"modelProvider":"down"');

      const started = performance.now();
      expect(await modelList(server, { modelProvider: "silent" })).toEqual(expected);
      expect(performance.now() - started).toBeLessThan(6_000);
      await server.waitForStderr('"modelProvider":"silent"');

      expect(await modelList(server, { modelProvider: "anthropic" })).toEqual(expected);
      await server.waitForStderr("ANTHROPIC_API_KEY");
    } finally {
      silent.close();
    }
  });
});
