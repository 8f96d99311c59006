import path from "node:path";
import type { Thread, ThreadReadState } from "../protocol/thread.js";
import type { ThreadListParams } from "../protocol/threadMethods.js";
import { decodeKeyCursor, encodeKeyCursor } from "./paging.js";
import type { ThreadSummary } from "./threadStore.js";

/** A page of `thread/list`. */
export interface ThreadPage {
  data: Thread[];
  /** Unread tracking of the listed threads, by id, as Codex sends it (experimental there, sent to every client). */
  readStates: Record<string, ThreadReadState>;
  nextCursor: string | null;
  /** For the other `sortDirection`: a page from this page's first thread back (it included); null for an empty page. */
  backwardsCursor: string | null;
}

const DEFAULT_LIMIT = 25;
/** Codex lists interactive sources by default; app-server threads are recorded as `vscode`. */
const DEFAULT_SOURCE_KINDS = ["cli", "vscode"];

/**
 * Filters, sorts and pages thread summaries. The cursor is the last entry's sort value and id, so
 * a page resumes strictly after it: threads added between pages sort before it (newest first) and
 * neither repeat nor push others out of later pages.
 */
export function listThreads(
  summaries: Iterable<ThreadSummary>,
  params: ThreadListParams,
  render: (summary: ThreadSummary) => Thread,
  serverCwd: string,
): ThreadPage {
  const key = params.sortKey === "updated_at" || params.sortKey === "recency_at" ? "updatedAtMs" : "createdAtMs";
  const direction = params.sortDirection === "asc" ? 1 : -1;
  const matches = filter(params, serverCwd);
  const sorted = [...summaries].filter(matches).sort((a, b) => direction * (a[key] - b[key] || a.id.localeCompare(b.id)));
  let start = 0;
  if (params.cursor) {
    const after = decodeKeyCursor(params.cursor);
    start = sorted.findIndex((s) => direction * (s[key] - after.value || s.id.localeCompare(after.id)) > 0);
    if (start === -1) start = sorted.length;
  }
  const limit = params.limit && params.limit > 0 ? params.limit : DEFAULT_LIMIT;
  const page = sorted.slice(start, start + limit);
  const last = page[page.length - 1];
  const nextCursor = last && start + limit < sorted.length ? encodeKeyCursor(last[key], last.id) : null;
  // Thread ids are UUIDs: "" sorts before each, "z" after, so the first thread is strictly after the cursor the other way.
  const first = page[0];
  const backwardsCursor = first ? encodeKeyCursor(first[key], direction === 1 ? "z" : "") : null;
  const readStates = Object.fromEntries(page.flatMap((summary) => (summary.readState ? [[summary.id, summary.readState]] : [])));
  return { data: page.map(render), readStates, nextCursor, backwardsCursor };
}

function filter(params: ThreadListParams, serverCwd: string): (summary: ThreadSummary) => boolean {
  const archived = params.archived ?? false;
  const kinds = new Set<string>(params.sourceKinds && params.sourceKinds.length > 0 ? params.sourceKinds : DEFAULT_SOURCE_KINDS);
  const providers = params.modelProviders && params.modelProviders.length > 0 ? new Set(params.modelProviders) : undefined;
  const cwds = params.cwd == null ? undefined : new Set((Array.isArray(params.cwd) ? params.cwd : [params.cwd]).map((c) => path.resolve(serverCwd, c)));
  const excluded = new Set(params.excludedThreadIds ?? []);
  const term = params.searchTerm ?? undefined;
  return (summary) =>
    summary.archived === archived &&
    kinds.has(sourceKind(summary.source)) &&
    (!providers || providers.has(summary.modelProvider)) &&
    (!cwds || cwds.has(summary.cwd)) &&
    !excluded.has(summary.id) &&
    (!term || (summary.name ?? summary.preview).includes(term) || summary.preview.includes(term));
}

function sourceKind(source: unknown): string {
  if (typeof source === "string") return source;
  if (source && typeof source === "object" && "subAgent" in source) return "subAgent";
  return "unknown";
}
