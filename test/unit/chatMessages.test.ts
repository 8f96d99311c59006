import { describe, expect, it } from "vitest";
import type { ConversationItem } from "../../src/agent/conversation.js";
import { chatMessages, TOOL_RESULTS_SEEN } from "../../src/agent/model/chatMessages.js";
import type { ModelRequest } from "../../src/agent/model/modelClient.js";
import { chatTemplateViolation } from "../../src/testing/chatTemplateCheck.js";

const text = (role: "user" | "assistant" | "developer", value: string): ConversationItem => ({
  type: "message",
  role,
  content: [{ type: role === "assistant" ? "output_text" : "input_text", text: value }],
});
const call = (callId: string, name = "exec_command"): ConversationItem => ({ type: "function_call", callId, name, arguments: "{}" });
const output = (callId: string, value: string): ConversationItem => ({ type: "tool_output", callId, custom: false, output: value });

function request(input: ConversationItem[]): ModelRequest {
  return { model: "m", instructions: "BASE", input, tools: [], reasoning: null, outputSchema: null, promptCacheKey: "t" };
}

/** What Codex's context puts first: developer instructions, skills, AGENTS.md, the environment. */
const context = [text("developer", "DEV"), text("developer", "SKILLS"), text("user", "AGENTS"), text("user", "ENV")];

describe("chat messages", () => {
  it("open with one system message and merge the context with the prompt into one user message", () => {
    const messages = chatMessages(request([...context, text("user", "Hi")]));
    expect(messages).toEqual([
      { role: "system", content: "BASE\n\nDEV\n\nSKILLS" },
      { role: "user", content: "AGENTS\n\nENV\n\nHi" },
    ]);
    expect(chatTemplateViolation(messages)).toBeNull();
  });

  it("put an assistant's text and tool calls in one message, its results right after, and a follow-up turn after them", () => {
    const history = [
      text("user", "Look."),
      { type: "reasoning", id: "rs_1", summary: [], content: ["hmm"] } as ConversationItem,
      text("assistant", "Looking."),
      call("c1"),
      output("c1", "one"),
      call("c2"),
      output("c2", "two"),
      text("assistant", "Found two."),
      text("user", "And now?"),
    ];
    const messages = chatMessages(request([...context, ...history]));
    expect(messages.slice(1)).toEqual([
      { role: "user", content: "AGENTS\n\nENV\n\nLook." },
      { role: "assistant", content: "Looking.", tool_calls: [{ id: "c1", type: "function", function: { name: "exec_command", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "one" },
      { role: "assistant", content: null, tool_calls: [{ id: "c2", type: "function", function: { name: "exec_command", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c2", content: "two" },
      { role: "assistant", content: "Found two." },
      { role: "user", content: "And now?" },
    ]);
    expect(chatTemplateViolation(messages)).toBeNull();
  });

  it("let the assistant speak between tool results and user input (steered input, an image a tool returned)", () => {
    const image: ConversationItem = { type: "tool_output", callId: "c2", custom: false, output: [{ type: "input_image", image_url: "data:image/png;base64,AA" }] };
    const messages = chatMessages(request([text("user", "Go."), call("c1"), output("c1", "ok"), text("user", "Also this."), call("c2", "view_image"), image]));
    expect(messages.slice(1)).toEqual([
      { role: "user", content: "Go." },
      { role: "assistant", content: null, tool_calls: [expect.objectContaining({ id: "c1" })] },
      { role: "tool", tool_call_id: "c1", content: "ok" },
      { role: "assistant", content: TOOL_RESULTS_SEEN },
      { role: "user", content: "Also this." },
      { role: "assistant", content: null, tool_calls: [expect.objectContaining({ id: "c2" })] },
      { role: "tool", tool_call_id: "c2", content: "[image attached below]" },
      { role: "assistant", content: TOOL_RESULTS_SEEN },
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA" } }] },
    ]);
    expect(chatTemplateViolation(messages)).toBeNull();
  });

  it("fold a developer message inside the conversation into the user's side, keeping the system message as it was", () => {
    const messages = chatMessages(request([...context, text("user", "Hi"), text("assistant", "Hello."), text("developer", "NOTE"), text("user", "Next")]));
    expect(messages[0]).toEqual({ role: "system", content: "BASE\n\nDEV\n\nSKILLS" });
    expect(messages.slice(-2)).toEqual([
      { role: "assistant", content: "Hello." },
      { role: "user", content: "NOTE\n\nNext" },
    ]);
    expect(chatTemplateViolation(messages)).toBeNull();
  });

  it("merge text and images of consecutive user inputs into one message's parts", () => {
    const withImage: ConversationItem = { type: "message", role: "user", content: [{ type: "input_text", text: "See" }, { type: "input_image", image_url: "u" }] };
    expect(chatMessages(request([text("user", "ENV"), withImage])).slice(1)).toEqual([
      { role: "user", content: [{ type: "text", text: "ENV" }, { type: "text", text: "See" }, { type: "image_url", image_url: { url: "u" } }] },
    ]);
  });

  it("join assistant text of consecutive responses into one message", () => {
    expect(chatMessages(request([text("user", "Hi"), text("assistant", "One."), text("assistant", "Two."), text("user", "Ok")])).slice(2, 3)).toEqual([
      { role: "assistant", content: "One.\n\nTwo." },
    ]);
  });
});

describe("the strict template check of the mock", () => {
  it("refuses what strict templates refuse", () => {
    const system = { role: "system", content: "s" };
    const user = { role: "user", content: "u" };
    const assistant = { role: "assistant", content: "a" };
    const calling = { role: "assistant", content: null, tool_calls: [{ id: "c" }] };
    const result = { role: "tool", tool_call_id: "c", content: "r" };
    expect(chatTemplateViolation([system, system, user])).toMatch(/system/);
    expect(chatTemplateViolation([system, user, user])).toMatch(/alternate/);
    expect(chatTemplateViolation([system, user, assistant, assistant, user])).toMatch(/alternate/);
    expect(chatTemplateViolation([system, user, calling, result, user])).toMatch(/'user' after role 'tool'/);
    expect(chatTemplateViolation([system, user, calling, user])).toMatch(/no result/);
    expect(chatTemplateViolation([system, user, assistant])).toMatch(/last role/);
    expect(chatTemplateViolation([system, assistant, user])).toMatch(/alternate/);
    expect(chatTemplateViolation([system, user, calling, result, assistant, user])).toBeNull();
  });
});
