import { describe, expect, it } from "vitest";
import { ChatAssembly, type ChatChunk } from "../../src/agent/model/chatAssembly.js";
import type { ModelEvent } from "../../src/agent/model/modelClient.js";
import { ModelError } from "../../src/agent/model/modelError.js";
import { chatEvents } from "../../src/testing/mockChatEvents.js";
import { parseMockScript, type MockResponseInput } from "../../src/testing/index.js";

/** The events of a chat stream, fed one chunk at a time as the network would. */
function assemble(chunks: readonly unknown[], customTools: readonly string[] = []): ModelEvent[] {
  const assembly = new ChatAssembly(new Set(customTools));
  const events: ModelEvent[] = [];
  for (const chunk of chunks) assembly.add([chunk as ChatChunk], events);
  return [...events, ...assembly.finish()];
}

/** The chunks the mock model streams for one scripted response. */
function mockChunks(response: MockResponseInput): unknown[] {
  return [...chatEvents(parseMockScript([response])[0]!, "resp_1", "m")].map((event) => event.data);
}

const calls = (events: readonly ModelEvent[]) => events.flatMap((event) => (event.type === "toolCall" ? [event.call] : []));
const usage = (events: readonly ModelEvent[]) => events.find((event) => event.type === "completed");

const twoCalls: MockResponseInput["items"] = [
  { type: "exec", cmd: "echo one", callId: "call_a" },
  { type: "function_call", name: "update_plan", arguments: { plan: [] }, callId: "call_b" },
];
const expectedCalls = [
  { type: "function_call", callId: "call_a", name: "exec_command", arguments: JSON.stringify({ yield_time_ms: 500, cmd: "echo one" }) },
  { type: "function_call", callId: "call_b", name: "update_plan", arguments: JSON.stringify({ plan: [] }) },
];

describe("chat tool calls", () => {
  for (const style of ["whole", "split", "repeated", "sameIndex"] as const) {
    it(`assemble the same calls when streamed ${style}`, () => {
      expect(calls(assemble(mockChunks({ items: twoCalls, chat: { toolCalls: style } })))).toEqual(expectedCalls);
    });
  }

  it("assign the id and name a server repeats in every chunk, and append only the arguments", () => {
    const part = (args: string) => ({ choices: [{ delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "exec_command", arguments: args } }] } }] });
    const events = assemble([part(""), part('{"cmd":'), part('"ls"}'), { choices: [{ delta: {}, finish_reason: "tool_calls" }] }]);
    expect(calls(events)).toEqual([{ type: "function_call", callId: "call_1", name: "exec_command", arguments: '{"cmd":"ls"}' }]);
  });

  it("take fragments without an index as the latest call's, and a new id as a new call", () => {
    const part = (fields: object) => ({ choices: [{ delta: { tool_calls: [fields] } }] });
    const events = assemble([
      part({ id: "a", function: { name: "one", arguments: "{" } }),
      part({ function: { arguments: "}" } }),
      part({ id: "b", function: { name: "two", arguments: "{}" } }),
      { choices: [{ delta: {}, finish_reason: "tool_calls" }] },
    ]);
    expect(calls(events).map((call) => [call.callId, call.name, call.type === "function_call" && call.arguments])).toEqual([
      ["a", "one", "{}"],
      ["b", "two", "{}"],
    ]);
  });

  it("give a call without an id one of its own, and turn a freeform tool's `input` back into its input", () => {
    const events = assemble([
      { id: "chatcmpl-9", choices: [{ delta: { tool_calls: [{ index: 0, function: { name: "apply_patch", arguments: '{"input":"*** Begin Patch"}' } }] } }] },
      { choices: [{ delta: {}, finish_reason: "tool_calls" }] },
    ], ["apply_patch"]);
    expect(calls(events)).toEqual([{ type: "custom_tool_call", callId: "call_chatcmpl-9_0", name: "apply_patch", input: "*** Begin Patch" }]);
  });
});

describe("chat reasoning and usage", () => {
  for (const field of ["reasoning_content", "reasoning"] as const) {
    it(`stream \`${field}\` deltas as a reasoning item`, () => {
      const events = assemble(mockChunks({ items: [{ type: "reasoning", content: ["Think", "ing."] }, { type: "message", text: "Hi" }], chat: { reasoningField: field } }));
      expect(events.map((event) => event.type)).toEqual(["reasoningStarted", "reasoningTextDelta", "reasoningTextDelta", "messageStarted", "textDelta", "reasoningDone", "messageDone", "completed"]);
      expect(events.find((event) => event.type === "reasoningDone")).toMatchObject({ item: { type: "reasoning", content: ["Thinking."] } });
    });
  }

  it("read usage from a chunk with `choices: []`, from the finish chunk, or go without", () => {
    const counts = { input_tokens: 7, output_tokens: 3 };
    const expected = { inputTokens: 7, outputTokens: 3, totalTokens: 10 };
    expect(usage(assemble(mockChunks({ items: [{ type: "message", text: "a" }], usage: counts, chat: { usage: "chunk" } })))).toMatchObject({ usage: expected });
    expect(usage(assemble(mockChunks({ items: [{ type: "message", text: "a" }], usage: counts, chat: { usage: "withFinish" } })))).toMatchObject({ usage: expected });
    expect(usage(assemble(mockChunks({ items: [{ type: "message", text: "a" }], chat: { usage: "none" } })))).toEqual({ type: "completed", usage: null });
  });

  it("fail a stream that ends before a finish_reason as a stream error", () => {
    expect(() => assemble([{ choices: [{ delta: { content: "cut" } }] }])).toThrow(ModelError);
  });
});
