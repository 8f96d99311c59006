import type http from "node:http";

/** A model the mock lists: an id, or an id with what a provider's list says about it. */
export type MockListedModel =
  | string
  | {
      readonly id: string;
      readonly displayName?: string;
      readonly inputTokenLimit?: number;
      /** Gemini's `supportedGenerationMethods` (default `generateContent`, `countTokens`). */
      readonly methods?: readonly string[];
    };

/** A `GET …/models` the mock received. */
export interface ModelListRequest {
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: http.IncomingHttpHeaders;
}

/**
 * The answer to a model list request, in the format it asks for: Anthropic's for `/v1/models`
 * with an `anthropic-version` header (paged by `limit`/`after_id`), Gemini's for `/v1beta/models`
 * (`pageSize`/`pageToken`), else OpenAI's (`after`, paged only when `pageSize` is set). `pageSize`
 * caps every page, so tests can see the server follow the pages.
 */
export function modelListAnswer(models: readonly MockListedModel[], pageSize: number | undefined, request: ModelListRequest): unknown {
  const all = models.map((model) => (typeof model === "string" ? { id: model } : model));
  const { path, query } = request;
  if (path.endsWith("/v1beta/models")) {
    const start = Number(query.pageToken?.replace(/^page-/, "") ?? 0);
    const end = start + Math.min(Number(query.pageSize) || 50, pageSize ?? Infinity);
    const page = all.slice(start, end).map((model) => ({
      name: `models/${model.id}`,
      version: "001",
      displayName: model.displayName ?? model.id,
      description: `The mock's ${model.id}`,
      inputTokenLimit: model.inputTokenLimit ?? 32_768,
      outputTokenLimit: 8_192,
      supportedGenerationMethods: model.methods ?? ["generateContent", "countTokens"],
    }));
    return { models: page, ...(end < all.length ? { nextPageToken: `page-${end}` } : {}) };
  }
  const after = query.after_id ?? query.after;
  const start = after ? all.findIndex((model) => model.id === after) + 1 : 0;
  if (path.endsWith("/v1/models") && request.headers["anthropic-version"]) {
    const end = start + Math.min(Number(query.limit) || 20, pageSize ?? Infinity);
    const page = all.slice(start, end).map((model) => ({
      type: "model",
      id: model.id,
      display_name: model.displayName ?? model.id,
      created_at: "2025-01-01T00:00:00Z",
      ...(model.inputTokenLimit ? { max_input_tokens: model.inputTokenLimit } : {}),
    }));
    return { data: page, has_more: end < all.length, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null };
  }
  const end = pageSize ? start + pageSize : all.length;
  const page = all.slice(start, end).map((model) => ({ id: model.id, object: "model", created: 0, owned_by: "mock" }));
  return { object: "list", data: page, ...(pageSize ? { has_more: end < all.length, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null } : {}) };
}
