import type { Turn } from "../protocol/index.js";
import type { SessionUpdate } from "../vendor/acp.js";
import { toolCallDone, toolCallOf } from "./toolCalls.js";

/**
 * A thread's stored turns as the updates that show them (`session/load`): the user's messages,
 * the agent's messages and reasoning, and each tool call with how it ended, in order.
 */
export function* historyUpdates(turns: readonly Turn[]): Generator<SessionUpdate> {
  for (const turn of turns) {
    for (const item of turn.items) {
      if (item.type === "userMessage") {
        for (const input of item.content) {
          if (input.type === "text") yield { sessionUpdate: "user_message_chunk", content: { type: "text", text: input.text } };
          else if (input.type === "image" && input.url) yield { sessionUpdate: "user_message_chunk", content: { type: "resource_link", name: "image", uri: input.url } };
        }
      } else if (item.type === "agentMessage") {
        yield { sessionUpdate: "agent_message_chunk", content: { type: "text", text: item.text } };
      } else if (item.type === "reasoning") {
        const thought = [...(item.summary ?? []), ...(item.content ?? [])].join("\n\n");
        if (thought) yield { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: thought } };
      } else {
        const call = toolCallOf(item);
        const done = toolCallDone(item);
        if (call) yield { sessionUpdate: "tool_call", ...call };
        if (done) yield { sessionUpdate: "tool_call_update", ...done };
      }
    }
  }
}
