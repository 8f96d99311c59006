import { applyPatchTool } from "./applyPatch.js";
import { execCommandTool, shellCommandTool, shellTool, writeStdinTool } from "./shellTools.js";
import type { Tool } from "./tool.js";
import { updatePlanTool } from "./updatePlan.js";
import { viewImageTool } from "./viewImage.js";

/** The tools every thread offers the model (as Codex 0.169), plus the older shell tools, run when called. */
export function builtInTools(): Tool[] {
  return [
    execCommandTool,
    writeStdinTool,
    applyPatchTool,
    updatePlanTool,
    viewImageTool,
    { ...shellTool, hidden: true },
    { ...shellCommandTool, hidden: true },
  ];
}
