import type { FunctionDeclaration, GenerateContentConfig, ThinkingConfig, ThinkingLevel } from "../../vendor/genai.js";
import type { ModelRequest, ToolSpec } from "./modelClient.js";

/** Thinking budgets (tokens) by reasoning effort, for the models that take a budget (2.5 and others). */
const BUDGETS: Readonly<Record<string, number>> = { low: 1024, medium: 8192, high: 24576, xhigh: 24576 };

/**
 * Thinking levels by reasoning effort for Gemini 3 (the SDK's `ThinkingLevel` values): the Flash
 * models take all four levels, the Pro ones only LOW and HIGH.
 */
const FLASH_LEVELS: Readonly<Record<string, string>> = { none: "MINIMAL", minimal: "MINIMAL", low: "LOW", medium: "MEDIUM", high: "HIGH", xhigh: "HIGH" };
const PRO_LEVELS: Readonly<Record<string, string>> = { none: "LOW", minimal: "LOW", low: "LOW", medium: "HIGH", high: "HIGH", xhigh: "HIGH" };

/**
 * The `generateContent` config of a request (everything but the model and contents): the system
 * instruction, tools as function declarations with their JSON Schema as is, thought summaries and
 * effort when the turn asks for reasoning, the output schema; `signal` aborts the HTTP stream.
 */
export function geminiConfig(request: ModelRequest, systemInstruction: string, signal: AbortSignal): GenerateContentConfig {
  const config: GenerateContentConfig = { abortSignal: signal };
  if (systemInstruction) config.systemInstruction = { parts: [{ text: systemInstruction }] };
  if (request.tools.length > 0) config.tools = [{ functionDeclarations: request.tools.map(toDeclaration) }];
  const thinking = thinkingConfig(request);
  if (thinking) config.thinkingConfig = thinking;
  if (request.outputSchema !== undefined && request.outputSchema !== null) {
    config.responseMimeType = "application/json";
    config.responseJsonSchema = request.outputSchema;
  }
  return config;
}

/** A tool as a function; a freeform (custom) tool takes its input as one `input` string. */
function toDeclaration(tool: ToolSpec): FunctionDeclaration {
  const parameters =
    tool.kind === "function"
      ? tool.parameters
      : { type: "object", properties: { input: { type: "string", description: "The raw tool input." } }, required: ["input"] };
  return { name: tool.name, description: tool.description, parametersJsonSchema: parameters };
}

/**
 * Thought summaries, and the effort as a thinking level (Gemini 3) or budget (the rest); none for
 * a turn without reasoning settings or a model that cannot think (1.x, 2.0). "none" and "minimal"
 * turn thinking off where a model allows it (the 2.5 Flash models); elsewhere the model decides.
 */
function thinkingConfig(request: ModelRequest): ThinkingConfig | null {
  const model = request.model.replace(/^models\//, "");
  if (!request.reasoning || /^gemini-(1\.|2\.0)/.test(model)) return null;
  const effort = request.reasoning.effort;
  const config: ThinkingConfig = { includeThoughts: request.reasoning.summary !== "none" };
  if (!effort) return config;
  if (/^gemini-3/.test(model)) {
    const level = (/flash/.test(model) ? FLASH_LEVELS : PRO_LEVELS)[effort];
    if (level) config.thinkingLevel = level as ThinkingLevel;
    return config;
  }
  if (effort === "none" || effort === "minimal") {
    return /^gemini-2\.5-flash/.test(model) ? { includeThoughts: false, thinkingBudget: 0 } : config;
  }
  const budget = BUDGETS[effort];
  if (budget) config.thinkingBudget = budget;
  return config;
}
