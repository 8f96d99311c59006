import type { ModelClient, ModelEvent, ModelRequest } from "./modelClient.js";
import type { ModelError } from "./modelError.js";
import type { ProviderSettings } from "./providers.js";

/** One wire's streaming call over its SDK: `opened()` once the HTTP answer is there (errors after it are stream errors). */
export type SdkStream<Sdk> = (sdk: Sdk, request: ModelRequest, signal: AbortSignal, opened: () => void) => AsyncIterable<readonly ModelEvent[]>;

/**
 * A model client over an SDK that is loaded on first use (so answering `initialize` never pays for
 * it): runs the wire's stream, and turns whatever fails into a ModelError with `classify`, told
 * whether the stream had opened. An interrupt throws the abort reason instead.
 */
export function lazyModelClient<Sdk>(
  create: () => Promise<Sdk>,
  stream: SdkStream<Sdk>,
  classify: (error: unknown, opened: boolean) => Promise<ModelError>,
): ModelClient {
  let sdk: Promise<Sdk> | undefined;
  // A load that failed is tried again by the next call rather than failing every later turn.
  const load = (): Promise<Sdk> =>
    (sdk ??= create().catch((error: unknown) => {
      sdk = undefined;
      throw error;
    }));
  return {
    prepare: async () => void (await load()),
    async *stream(request, signal) {
      const client = await load();
      let opened = false;
      try {
        yield* stream(client, request, signal, () => (opened = true));
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw await classify(error, opened);
      }
    },
  };
}

/**
 * The client options the openai and Anthropic SDKs share, for a provider: its key (a placeholder
 * for a gateway without one: both SDKs refuse to send no key), base URL, headers and query; their
 * own retries off, because the turn runner retries and says so.
 */
export function sdkOptions(provider: ProviderSettings) {
  return {
    apiKey: provider.apiKey ?? "unused",
    baseURL: provider.baseUrl,
    defaultHeaders: provider.headers,
    defaultQuery: provider.query,
    maxRetries: 0,
    timeout: provider.streamIdleTimeoutMs,
  };
}
