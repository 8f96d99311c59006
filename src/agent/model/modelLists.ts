import { displayableUrl, type ProviderSettings, type WireApi } from "./providers.js";

/** A model as a provider's own list describes it; null where the provider does not say. */
export interface ListedModel {
  readonly id: string;
  readonly displayName: string | null;
  readonly description: string | null;
  readonly inputModalities: ReadonlyArray<"text" | "image"> | null;
  /** Input tokens the model takes (Anthropic's `max_input_tokens`, Gemini's `inputTokenLimit`). */
  readonly contextWindow: number | null;
  /** Listed but on its way out (Anthropic's `deprecated`): shown only to a client that asks for hidden models. */
  readonly hidden: boolean;
}

/** One page of a list: its models, and the query parameter that asks for the next page (null: the last). */
interface Page {
  readonly models: ListedModel[];
  readonly next: readonly [name: string, value: string] | null;
}

/** How one wire lists models: where, with which headers, and how to read a page. */
interface ListWire {
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  headers(apiKey: string | null): Record<string, string>;
  /** Reads one page; throws when the answer is no model list. */
  page(body: unknown): Page;
  /** OpenAI-compatible lists come in no useful order; Anthropic and Google list newest or main models first. */
  readonly sortById: boolean;
}

// A server that keeps answering with more pages must not keep the listing going.
const MAX_PAGES = 20;

const OPENAI: ListWire = {
  path: "/models",
  query: {},
  headers: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  page(body) {
    const { data, has_more, last_id } = body as { data?: unknown; has_more?: unknown; last_id?: unknown };
    const models = entries(data).flatMap((entry) => (typeof entry.id === "string" && entry.id ? [modelNamed(entry.id)] : []));
    return { models, next: has_more === true && typeof last_id === "string" ? ["after", last_id] : null };
  },
  sortById: true,
};

const ANTHROPIC: ListWire = {
  path: "/v1/models",
  query: { limit: "1000" },
  headers: (apiKey) => ({ "anthropic-version": "2023-06-01", ...(apiKey ? { "x-api-key": apiKey } : {}) }),
  page(body) {
    const { data, has_more, last_id } = body as { data?: unknown; has_more?: unknown; last_id?: unknown };
    const models = entries(data).flatMap((entry): ListedModel[] => {
      if (typeof entry.id !== "string" || !entry.id) return [];
      const capabilities = entry.capabilities as { image_input?: { supported?: unknown } } | null | undefined;
      return [
        {
          id: entry.id,
          displayName: text(entry.display_name),
          description: null,
          inputModalities: capabilities?.image_input?.supported === false ? ["text"] : ["text", "image"],
          contextWindow: count(entry.max_input_tokens),
          hidden: entry.lifecycle === "deprecated",
        },
      ];
    });
    return { models, next: has_more === true && typeof last_id === "string" ? ["after_id", last_id] : null };
  },
  sortById: false,
};

const GEMINI: ListWire = {
  path: "/v1beta/models",
  query: { pageSize: "1000" },
  headers: (apiKey): Record<string, string> => (apiKey ? { "x-goog-api-key": apiKey } : {}),
  page(body) {
    const { models: listed, nextPageToken } = body as { models?: unknown; nextPageToken?: unknown };
    // Embedding, AQA, Imagen and Veo models answer other methods (embedContent, generateAnswer, predict…).
    const models = entries(listed ?? []).flatMap((entry): ListedModel[] => {
      const methods = Array.isArray(entry.supportedGenerationMethods) ? entry.supportedGenerationMethods : [];
      if (typeof entry.name !== "string" || !methods.includes("generateContent")) return [];
      const id = entry.name.replace(/^models\//, "");
      if (!id) return [];
      return [
        {
          id,
          displayName: text(entry.displayName),
          description: text(entry.description),
          inputModalities: ["text", "image"],
          contextWindow: count(entry.inputTokenLimit),
          hidden: false,
        },
      ];
    });
    return { models, next: typeof nextPageToken === "string" && nextPageToken ? ["pageToken", nextPageToken] : null };
  },
  sortById: false,
};

const WIRES: Readonly<Record<WireApi, ListWire>> = { responses: OPENAI, chat: OPENAI, anthropic: ANTHROPIC, gemini: GEMINI };

/**
 * The chat models `provider` lists, asked in its own wire's way (OpenAI's `GET /models`,
 * Anthropic's `GET /v1/models`, Gemini's `GET /v1beta/models`), every page of it, with plain
 * `fetch` so no SDK loads. Throws, with a reason fit for the log, when the provider does not answer
 * with a list before `signal` ends.
 */
export async function fetchModelList(provider: ProviderSettings, signal: AbortSignal): Promise<ListedModel[]> {
  const wire = WIRES[provider.wireApi];
  const headers = { ...provider.headers, ...wire.headers(provider.apiKey) };
  const found = new Map<string, ListedModel>();
  let next: Page["next"] = null;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const url = new URL(`${provider.baseUrl.replace(/\/+$/, "")}${wire.path}`);
    for (const [name, value] of Object.entries({ ...provider.query, ...wire.query })) url.searchParams.set(name, value);
    if (next) url.searchParams.set(...next);
    const where = `GET ${displayableUrl(url.href)}`;
    const body = await getJson(url, headers, signal, where);
    let page: Page;
    try {
      page = wire.page(body);
    } catch (error) {
      throw new Error(`${where} answered ${reasonOf(error)}`);
    }
    for (const model of page.models) if (!found.has(model.id) && canChat(model.id)) found.set(model.id, model);
    // A cursor that does not move would ask for the same page again.
    if (!page.next || page.next[1] === next?.[1]) break;
    next = page.next;
  }
  const models = [...found.values()];
  return wire.sortById ? models.sort((a, b) => (a.id < b.id ? -1 : 1)) : models;
}

/**
 * False for ids that name a model no agent can chat with: embeddings, speech, transcription,
 * moderation and DALL·E. Kept to names that say so plainly, so a gateway's own models stay listed.
 */
export function canChat(id: string): boolean {
  const words = id.toLowerCase().split(/[-_.:/\s]+/);
  return !words.some((word) => /^embed|^(whisper|tts|moderation|transcribe)$/.test(word)) && !/dall-?e/.test(id.toLowerCase());
}

async function getJson(url: URL, headers: Record<string, string>, signal: AbortSignal, where: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers, signal });
  } catch (error) {
    throw new Error(`${where} failed: ${reasonOf(error)}`);
  }
  if (!response.ok) throw new Error(`${where} answered HTTP ${response.status}`);
  try {
    return await response.json();
  } catch (error) {
    throw new Error(`${where} answered no JSON: ${reasonOf(error)}`);
  }
}

/** What went wrong, from the innermost cause: `fetch failed` alone says nothing. */
function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

function entries(list: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(list)) throw new Error("no model list");
  return list.filter((entry): entry is Record<string, unknown> => typeof entry === "object" && entry !== null);
}

/** A model the provider says nothing about beyond its id. */
export function modelNamed(id: string): ListedModel {
  return { id, displayName: null, description: null, inputModalities: null, contextWindow: null, hidden: false };
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null;
}
