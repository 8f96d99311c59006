import * as z from "zod";
import { lazySchema } from "../../protocol/lazySchema.js";
import type { ToolCall } from "../conversation.js";
import type { Tool, ToolContext } from "./tool.js";
import { parseArguments } from "./arguments.js";

const PlanArguments = lazySchema(() => z.object({
  explanation: z.string().nullable().optional(),
  plan: z.array(z.object({ step: z.string(), status: z.enum(["pending", "in_progress", "completed"]) })),
}));

const STATUS = { pending: "pending", in_progress: "inProgress", completed: "completed" } as const;
const MARK = { pending: "[ ]", in_progress: "[~]", completed: "[x]" } as const;

/** `update_plan`: the model keeps a step list; clients get a `plan` item and `turn/plan/updated`. */
export const updatePlanTool: Tool = {
  spec: {
    kind: "function",
    name: "update_plan",
    description:
      "Updates the task plan. Give an optional explanation and a list of steps, each with a status " +
      "(pending, in_progress or completed). At most one step should be in_progress at a time.",
    parameters: {
      type: "object",
      properties: {
        explanation: { type: "string" },
        plan: {
          type: "array",
          items: {
            type: "object",
            properties: { step: { type: "string" }, status: { type: "string", enum: ["pending", "in_progress", "completed"] } },
            required: ["step", "status"],
            additionalProperties: false,
          },
        },
      },
      required: ["plan"],
      additionalProperties: false,
    },
  },
  async run(call: ToolCall, context: ToolContext): Promise<string> {
    const parsed = parseArguments(call, PlanArguments);
    if (!parsed.ok) return parsed.message;
    const { explanation, plan } = parsed.value;
    const lines = plan.map((entry) => `- ${MARK[entry.status]} ${entry.step}`);
    const text = [explanation, lines.join("\n")].filter(Boolean).join("\n\n");
    const base = { threadId: context.threadId, turnId: context.turnId };
    await context.emit({ type: "itemStarted", item: { type: "plan", id: call.callId, text: "" } });
    await context.emit({ type: "notify", method: "item/plan/delta", params: { ...base, itemId: call.callId, delta: text } });
    await context.emit({ type: "itemCompleted", item: { type: "plan", id: call.callId, text } });
    await context.emit({
      type: "notify",
      method: "turn/plan/updated",
      params: { ...base, explanation: explanation ?? null, plan: plan.map((entry) => ({ step: entry.step, status: STATUS[entry.status] })) },
    });
    return "Plan updated";
  },
};
