import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { listModels } from "../../src/agent/model/modelCatalog.js";
import { LIST_FAILED_MS, LIST_FRESH_MS, ModelListCache } from "../../src/agent/model/modelListCache.js";
import { canChat, fetchModelList } from "../../src/agent/model/modelLists.js";
import { PROVIDER_DEFAULTS, type ProviderSettings } from "../../src/agent/model/providers.js";
import type { Logger } from "../../src/runtime/logger.js";

const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A server answering each GET with the next of `pages` (JSON), recording the URLs asked for. */
async function listServer(pages: unknown[]): Promise<{ origin: string; urls: string[] }> {
  const urls: string[] = [];
  const server = http.createServer((req, res) => {
    urls.push(req.url ?? "");
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(pages[urls.length - 1] ?? pages.at(-1)));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  closers.push(() => server.close());
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, urls };
}

function provider(wireApi: ProviderSettings["wireApi"], baseUrl: string, query: Record<string, string> = {}): ProviderSettings {
  return { id: "p", name: "P", baseUrl, apiKey: null, apiKeyVariable: null, wireApi, headers: {}, query, ...PROVIDER_DEFAULTS };
}

describe("which listed models can chat", () => {
  it("leaves out embeddings, speech, transcription, moderation and DALL·E, and nothing else", () => {
    const out = ["text-embedding-3-large", "nomic-embed-text:latest", "snowflake-arctic-embed2", "gemini-embedding-001", "whisper-1", "distil-whisper-large-v3-en", "tts-1-hd", "gpt-4o-mini-tts", "gpt-4o-transcribe", "omni-moderation-latest", "dall-e-3"];
    const kept = ["gpt-5.5", "o3-mini", "qwen3:30b", "llama3.3", "deepseek-r1", "claude-sonnet-4-5", "gemini-2.5-pro", "gpt-4o-audio-preview"];
    expect(out.filter(canChat)).toEqual([]);
    expect(kept.filter(canChat)).toEqual(kept);
  });
});

describe("native model lists", () => {
  it("reads Anthropic's capabilities and lifecycle, and keeps the provider's order", async () => {
    const { origin } = await listServer([
      {
        data: [
          { type: "model", id: "claude-new", display_name: "Claude New", max_input_tokens: 1_000_000, capabilities: { image_input: { supported: true } }, lifecycle: "active" },
          { type: "model", id: "claude-text", display_name: "Claude Text", capabilities: { image_input: { supported: false } } },
          { type: "model", id: "claude-old", display_name: "Claude Old", lifecycle: "deprecated" },
        ],
        has_more: false,
      },
    ]);
    const listed = await fetchModelList(provider("anthropic", origin), AbortSignal.timeout(2_000));
    expect(listed.map((model) => [model.id, model.inputModalities, model.contextWindow, model.hidden])).toEqual([
      ["claude-new", ["text", "image"], 1_000_000, false],
      ["claude-text", ["text"], null, false],
      ["claude-old", ["text", "image"], null, true],
    ]);
  });

  it("keeps the provider's query, and stops when a cursor does not move", async () => {
    const page = { data: [{ id: "b" }, { id: "a" }], has_more: true, last_id: "a" };
    const { origin, urls } = await listServer([page]);
    const listed = await fetchModelList(provider("responses", `${origin}/v1/`, { "api-version": "2025-01-01" }), AbortSignal.timeout(2_000));
    expect(listed.map((model) => model.id)).toEqual(["a", "b"]);
    expect(urls).toEqual(["/v1/models?api-version=2025-01-01", "/v1/models?api-version=2025-01-01&after=a"]);
  });

  it("fails, naming the URL without its query, when the answer is no list", async () => {
    const { origin } = await listServer([{ error: "nope" }]);
    await expect(fetchModelList(provider("anthropic", origin, { key: "secret" }), AbortSignal.timeout(2_000))).rejects.toThrow(
      `GET ${origin}/v1/models answered no model list`,
    );
  });

  it("model/list's entries: a deprecated model hidden, a text-only one so, the configured one never hidden", async () => {
    const { origin } = await listServer([
      {
        data: [
          { id: "claude-old", display_name: "Claude Old", lifecycle: "deprecated" },
          { id: "claude-text", display_name: "Claude Text", capabilities: { image_input: { supported: false } }, lifecycle: "deprecated" },
        ],
        has_more: false,
      },
    ]);
    const logger = { warn: vi.fn() } as unknown as Logger;
    const config = { model_providers: { lab: { base_url: origin, wire_api: "anthropic" as const } } };
    const models = await listModels(config, "lab", "claude-text", {}, logger);
    expect(models.map((model) => [model.id, model.isDefault, model.hidden, model.inputModalities])).toEqual([
      ["claude-text", true, false, ["text"]],
      ["claude-old", false, true, ["text", "image"]],
    ]);
    expect(logger.warn).not.toHaveBeenCalled();
  });
});

describe("the model list cache", () => {
  it("reuses a listing for a minute, shares one under way, and keys apart", async () => {
    let now = 0;
    const cache = new ModelListCache<string[]>(() => now);
    const load = vi.fn(async () => ["m"]);
    const [first, second] = await Promise.all([cache.get("k", load), cache.get("k", load)]);
    expect([first, second]).toEqual([["m"], ["m"]]);
    expect(load).toHaveBeenCalledTimes(1);
    now += LIST_FRESH_MS - 1;
    await cache.get("k", load);
    await cache.get("other", load);
    expect(load).toHaveBeenCalledTimes(2);
    now += 1;
    await cache.get("k", load);
    expect(load).toHaveBeenCalledTimes(3);
  });

  it("remembers a failure only briefly", async () => {
    let now = 0;
    const cache = new ModelListCache<string[]>(() => now);
    const load = vi.fn(async (): Promise<string[]> => {
      throw new Error("down");
    });
    await expect(cache.get("k", load)).rejects.toThrow("down");
    await expect(cache.get("k", load)).rejects.toThrow("down");
    expect(load).toHaveBeenCalledTimes(1);
    now += LIST_FAILED_MS;
    await expect(cache.get("k", load)).rejects.toThrow("down");
    expect(load).toHaveBeenCalledTimes(2);
  });
});
