import type { Tool } from "./tool.js";
import { updatePlanTool } from "./updatePlan.js";

/** The tools every thread offers the model. */
export function builtInTools(): Tool[] {
  return [updatePlanTool];
}
