import type { WritableRoots } from "../../workspace/roots.js";
import type { ToolContext } from "./tool.js";

/**
 * Where a tool the server runs itself may read for the model: the turn's cwd and writable roots,
 * never the server's own files (what every sandbox masks), and only what the sandbox's processes
 * may read by the files' modes; anywhere under full access.
 */
export function readableRoots(context: ToolContext): WritableRoots | null {
  const { sandbox, env } = context.environment;
  const writable = sandbox.roots(context.settings.sandbox, context.cwd, env);
  return writable && { roots: [context.cwd, ...writable.roots], protectedPaths: [], hiddenPaths: sandbox.masked(), asSandbox: true };
}
