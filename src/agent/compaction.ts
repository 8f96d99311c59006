import type { ConversationItem } from "./conversation.js";
import type { ModelClient, ModelRequest, ModelUsage } from "./model/modelClient.js";
import type { ProviderSettings } from "./model/providers.js";
import { sample } from "./model/sampling.js";

/** The request that asks the model for a handoff summary of the conversation so far. */
export const COMPACTION_PROMPT =
  "CONTEXT CHECKPOINT COMPACTION. The conversation is about to be replaced by your summary. Write a handoff " +
  "summary for the model that continues this task: the user's goal and constraints, what has been done " +
  "(files changed, commands run and their results), the current state, decisions made, open questions, " +
  "and the next steps. Be concise and concrete; keep the paths, names and values that matter.";

/** Put before the summary in the new history, so the next model knows what it is reading. */
export const SUMMARY_PREFIX =
  "Another language model started to solve this problem and produced a summary of its work so far. " +
  "Build on it and do not redo what it says is done:\n\n";

/** How much of the user's own recent words survive a compaction verbatim (characters). */
const RETAINED_USER_CHARS = 20_000;

/** Codex's context window for models it has no metadata for. */
export const DEFAULT_CONTEXT_WINDOW = 272_000;

/** A rough token count of history entries (4 characters a token), for the context after a compaction. */
export function estimateTokens(items: readonly ConversationItem[]): number {
  return Math.ceil(JSON.stringify(items).length / 4);
}

/** Codex compacts at 90 % of the context window, or earlier when configured. */
export function compactionLimit(autoCompactTokenLimit: number | undefined, contextWindow: number): number {
  return Math.min(autoCompactTokenLimit ?? Number.POSITIVE_INFINITY, Math.floor(contextWindow * 0.9));
}

/**
 * Summarizes `history` with the model and returns the history that replaces it: the user's most
 * recent messages (up to a budget) and then the summary. Throws what the model call throws.
 */
export async function compactHistory(
  client: ModelClient,
  provider: ProviderSettings,
  base: Pick<ModelRequest, "model" | "instructions" | "promptCacheKey">,
  context: readonly ConversationItem[],
  history: readonly ConversationItem[],
  signal: AbortSignal,
): Promise<{ readonly replacement: ConversationItem[]; readonly usage: ModelUsage | null }> {
  const request: ModelRequest = {
    ...base,
    input: [...context, ...history, { type: "message", role: "user", content: [{ type: "input_text", text: COMPACTION_PROMPT }] }],
    tools: [],
    reasoning: null,
    outputSchema: null,
  };
  const texts: string[] = [];
  let usage: ModelUsage | null = null;
  for await (const events of sample(client, request, provider, signal)) {
    for (const event of events) {
      if (event.type === "messageDone") texts.push(event.text);
      else if (event.type === "completed") usage = event.usage;
    }
  }
  const summary = texts.join("\n").trim() || "(the model gave no summary)";
  return {
    replacement: [...recentUserMessages(history), { type: "message", role: "user", content: [{ type: "input_text", text: SUMMARY_PREFIX + summary }] }],
    usage,
  };
}

/** The latest user messages, oldest first, within the retained budget. */
function recentUserMessages(history: readonly ConversationItem[]): ConversationItem[] {
  const kept: ConversationItem[] = [];
  let budget = RETAINED_USER_CHARS;
  for (const item of [...history].reverse()) {
    if (item.type !== "message" || item.role !== "user") continue;
    const size = item.content.reduce((sum, part) => sum + ("text" in part ? part.text.length : 0), 0);
    if (size > budget) break;
    budget -= size;
    kept.unshift(item);
  }
  return kept;
}
