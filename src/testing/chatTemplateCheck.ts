interface Message {
  readonly role?: unknown;
  readonly content?: unknown;
  readonly tool_call_id?: unknown;
  readonly tool_calls?: ReadonlyArray<{ readonly id?: unknown }>;
}

/**
 * Why a strict chat template would refuse `messages`, or null when it accepts them. The rules are
 * those of mistral_common and of the Jinja templates that raise on role order (Mistral, Gemma,
 * Llama 2) as vLLM and llama.cpp apply them: at most one system message, first; then user and
 * assistant alternate, starting with the user; an assistant's tool calls are answered, each by one
 * `tool` message, right after it; after a tool message comes a tool or an assistant message,
 * never a user's; the list ends with a user or a tool message. Messages are as in vLLM's errors.
 */
export function chatTemplateViolation(messages: unknown): string | null {
  if (!Array.isArray(messages) || messages.length === 0) return "messages must be a non-empty list";
  let previous: string | null = null;
  let unanswered = new Set<unknown>();
  for (const [index, message] of (messages as Message[]).entries()) {
    const role = String(message?.role);
    if (role === "tool") {
      if (!unanswered.delete(message.tool_call_id)) return `Unexpected tool message ${index}: it answers no pending tool call (${String(message.tool_call_id)})`;
    } else if (unanswered.size > 0) {
      return `Unexpected role '${role}' after role '${previous}': tool calls ${[...unanswered].join(", ")} have no result`;
    } else if (role === "system") {
      if (index !== 0) return `Unexpected role 'system' at message ${index}: a system message may only come first`;
    } else if (role === "user") {
      if (previous === "user" || previous === "tool") return `Unexpected role 'user' after role '${previous}'. Conversation roles must alternate user/assistant/user/assistant/...`;
    } else if (role === "assistant") {
      if (previous !== "user" && previous !== "tool") return `Unexpected role 'assistant' after role '${previous}'. Conversation roles must alternate user/assistant/user/assistant/...`;
      const calls = message.tool_calls ?? [];
      if (calls.length === 0 && (typeof message.content !== "string" || message.content === "")) return `Assistant message ${index} has neither content nor tool_calls`;
      unanswered = new Set(calls.map((call) => call.id));
    } else {
      return `Unexpected role '${role}' at message ${index}`;
    }
    previous = role;
  }
  if (unanswered.size > 0) return `tool calls ${[...unanswered].join(", ")} have no result`;
  if (previous !== "user" && previous !== "tool") return `Expected last role User or Tool for serving but got ${previous}`;
  return null;
}
