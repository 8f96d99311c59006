import * as z from "zod";
import { lazySchema } from "../../protocol/lazySchema.js";
import type { ToolCall } from "../conversation.js";
import { parseArguments } from "./arguments.js";
import type { Tool, ToolContext } from "./tool.js";

const Question = lazySchema(() => z.object({
  id: z.string().min(1),
  header: z.string(),
  question: z.string().min(1),
  options: z.array(z.object({ label: z.string(), description: z.string() })).optional(),
}));
const RequestUserInputArguments = lazySchema(() => z.object({ questions: z.array(Question).min(1).max(3) }));

/**
 * `request_user_input`: the model asks the user up to three questions and waits for the answers
 * (`item/tool/requestUserInput`); the answers go back to the model as JSON. Offered only when
 * `tools.experimental_request_user_input.enabled` is set, as in Codex.
 */
export const requestUserInputTool: Tool = {
  spec: {
    kind: "function",
    name: "request_user_input",
    description:
      "Asks the user one to three short questions and waits for the answers. Use it only when you cannot go on without a decision from the user; offer options when the choices are known.",
    parameters: {
      type: "object",
      properties: {
        questions: {
          type: "array",
          minItems: 1,
          maxItems: 3,
          items: {
            type: "object",
            properties: {
              id: { type: "string", description: "A stable id for the answer, in snake_case." },
              header: { type: "string", description: "A short label (12 characters at most)." },
              question: { type: "string", description: "The question, one sentence." },
              options: {
                type: "array",
                items: {
                  type: "object",
                  properties: { label: { type: "string" }, description: { type: "string" } },
                  required: ["label", "description"],
                  additionalProperties: false,
                },
              },
            },
            required: ["id", "header", "question"],
            additionalProperties: false,
          },
        },
      },
      required: ["questions"],
      additionalProperties: false,
    },
  },
  async run(call: ToolCall, context: ToolContext): Promise<string> {
    const parsed = parseArguments(call, RequestUserInputArguments);
    if (!parsed.ok) return parsed.message;
    const questions = parsed.value.questions.map((question) => ({ ...question, isOther: false, isSecret: false, options: question.options ?? null }));
    const answer = await context.client.askUser({ itemId: call.callId, questions, isBlocking: true });
    if (!answer) return "request_user_input failed: the user did not answer.";
    return JSON.stringify(answer);
  },
};

/** Whether the config turns `request_user_input` on (`[tools.experimental_request_user_input] enabled = true`). */
export function requestUserInputEnabled(tools: { experimental_request_user_input?: { enabled?: boolean } } | undefined): boolean {
  return tools?.experimental_request_user_input?.enabled === true;
}
