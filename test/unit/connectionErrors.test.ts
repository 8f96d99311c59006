import { describe, expect, it } from "vitest";
import { chatClient } from "../../src/agent/model/chatWire.js";
import { connectionError } from "../../src/agent/model/connectionError.js";
import type { ModelClient, ModelRequest } from "../../src/agent/model/modelClient.js";
import { ModelError } from "../../src/agent/model/modelError.js";
import { resolveProvider, type ProviderSettings } from "../../src/agent/model/providers.js";
import { responsesClient } from "../../src/agent/model/responsesWire.js";
import { sample } from "../../src/agent/model/sampling.js";
import { startMockModel } from "../../src/testing/index.js";
import { closedPort } from "../support/ports.js";

function provider(id: string, baseUrl: string, requestMaxRetries = 4): ProviderSettings {
  return { ...resolveProvider({ model_providers: { [id]: { base_url: baseUrl, wire_api: "chat" } } }, id, {}), requestMaxRetries };
}

/** What fetch throws through the SDK: a connection error wrapping "fetch failed" wrapping the socket's error. */
function sdkStyle(code: string, address?: string): Error {
  const socket = Object.assign(new Error(`connect ${code} ${address ?? ""}`), { code, address });
  return new Error("Connection error.", { cause: new TypeError("fetch failed", { cause: socket }) });
}


const request: ModelRequest = { model: "m", instructions: "", input: [], tools: [], reasoning: null, outputSchema: null, promptCacheKey: "k" };

async function failure(client: ModelClient, settings: ProviderSettings): Promise<ModelError> {
  try {
    for await (const _ of sample(client, request, settings, new AbortController().signal)) {
      // Nothing arrives from a refused connection.
    }
  } catch (error) {
    return error as ModelError;
  }
  throw new Error("the call did not fail");
}

describe("connection errors", () => {
  it("name the provider and its URL, and ask whether Ollama runs", () => {
    const error = connectionError(sdkStyle("ECONNREFUSED", "127.0.0.1"), provider("ollama", "http://localhost:11434/v1"));
    expect(error.message).toBe(
      "could not reach model provider `ollama` at http://localhost:11434/v1: connection refused (ECONNREFUSED). Is Ollama running? Start it with `ollama serve`.",
    );
    expect(error).toMatchObject({ kind: "refused", info: { httpConnectionFailed: { httpStatusCode: null } } });
  });

  it("ask about the server at other URLs, retry them as usual, and never show credentials", () => {
    const error = connectionError(sdkStyle("ECONNREFUSED", "10.0.0.5"), provider("local", "http://user:secret@10.0.0.5:8000/v1?key=k"));
    expect(error.message).toBe(
      "could not reach model provider `local` at http://10.0.0.5:8000/v1: connection refused (ECONNREFUSED). Is the server at http://10.0.0.5:8000/v1 running?",
    );
    expect(error.kind).toBe("request");
  });

  it("find the code in an AggregateError of the addresses tried, and judge loopback by the URL when no address is known", () => {
    const both = new AggregateError([Object.assign(new Error("refused"), { code: "ECONNREFUSED" })], "all failed");
    const error = connectionError(new Error("Connection error.", { cause: new TypeError("fetch failed", { cause: both }) }), provider("vllm", "http://[::1]:8000/v1"));
    expect(error).toMatchObject({ kind: "refused", message: expect.stringContaining("`vllm` at http://[::1]:8000/v1: connection refused") });
  });

  it("say when the host is unknown, and fall back to the innermost message", () => {
    expect(connectionError(sdkStyle("ENOTFOUND"), provider("far", "http://nowhere.invalid/v1")).message).toBe(
      "could not reach model provider `far` at http://nowhere.invalid/v1: host not found (ENOTFOUND). Check the host name in model_providers.far.base_url.",
    );
    expect(connectionError(new Error("Request timed out."), provider("far", "http://far.example/v1")).message).toBe(
      "could not reach model provider `far` at http://far.example/v1: Request timed out. Check that the server at http://far.example/v1 is running and reachable.",
    );
  });

  it("fail a refused loopback connection after one quick retry, on both wires", async () => {
    const settings = provider("ollama", `http://127.0.0.1:${await closedPort()}/v1`);
    for (const wire of [chatClient, responsesClient]) {
      let calls = 0;
      const client = wire(settings);
      const counting: ModelClient = { prepare: () => client.prepare(), stream: (...args) => (calls++, client.stream(...args)) };
      const error = await failure(counting, settings);
      expect(error).toBeInstanceOf(ModelError);
      expect(error.kind).toBe("refused");
      expect(error.message).toContain(`\`ollama\` at ${settings.baseUrl}: connection refused (ECONNREFUSED). Is Ollama running?`);
      expect(calls).toBe(2);
    }
  });

  it("keep the reason of an error body in the flat shape of older vLLM servers", async () => {
    const mock = await startMockModel({ responses: [{ httpStatus: 400, errorBody: { object: "error", message: "roles must alternate", type: "BadRequestError", param: null, code: 400 } }] });
    try {
      const error = await failure(chatClient(provider("vllm", mock.url)), provider("vllm", mock.url));
      expect(error).toMatchObject({ kind: "fatal", info: "badRequest", message: expect.stringContaining("roles must alternate") });
    } finally {
      await mock.close();
    }
  });
});
