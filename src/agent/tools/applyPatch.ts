import { stat } from "node:fs/promises";
import path from "node:path";
import type { FileUpdateChange, ThreadItem } from "../../protocol/items.js";
import { TurnCancelled } from "../approvals.js";
import type { ToolCall } from "../conversation.js";
import { realLocation } from "../../workspace/confinement.js";
import { isInside, type WritableRoots } from "../../workspace/roots.js";
import { commitPatch, planPatch, type PlannedChange } from "../patch/patchApply.js";
import { parsePatch } from "../patch/patchParser.js";
import { decidePatch } from "../safety/decision.js";
import type { Tool, ToolContext } from "./tool.js";
import type { EditorFiles } from "./turnEditor.js";

// Codex's apply_patch grammar, offered as a freeform tool so models trained on Codex write it well.
const GRAMMAR = String.raw`start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?
hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?
filename: /(.+)/
add_line: "+" /(.*)/ LF -> line
change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF
%import common.LF`;

const DESCRIPTION =
  "Edits files with a patch. Send the whole patch: '*** Begin Patch', then for each file '*** Add File: <path>' " +
  "(lines prefixed with +), '*** Delete File: <path>', or '*** Update File: <path>' (optionally '*** Move to: <path>') " +
  "followed by changes that start with '@@' (optionally '@@ <a line to find first>') and lines prefixed with ' ' " +
  "(context), '-' (remove) or '+' (add); end with '*** End Patch'. Paths are relative to the working directory.";

/** `apply_patch`: freeform on the Responses wire (the chat wire sends it as a function with `input`). */
export const applyPatchTool: Tool = {
  spec: { kind: "custom", name: "apply_patch", description: DESCRIPTION, format: { syntax: "lark", definition: GRAMMAR } },
  async run(call: ToolCall, context: ToolContext): Promise<string> {
    let patch = call.type === "custom_tool_call" ? call.input : call.arguments;
    if (call.type === "function_call") {
      try {
        const parsed = JSON.parse(call.arguments) as { input?: unknown; patch?: unknown };
        patch = String(parsed.input ?? parsed.patch ?? "");
      } catch {
        // Not JSON: the model sent the patch itself.
      }
    }
    return applyPatch(patch, call.callId, context.cwd, context);
  },
};

/**
 * Applies a patch as a `fileChange` item: parse and verify everything first, ask when policy says
 * so, then write all of it (or nothing). Returns the text the model gets back.
 */
export async function applyPatch(patch: string, itemId: string, cwd: string, context: ToolContext): Promise<string> {
  const item = (changes: FileUpdateChange[], status: "inProgress" | "completed" | "failed" | "declined"): ThreadItem => ({
    type: "fileChange",
    id: itemId,
    changes,
    status,
  });
  const { sandbox } = context.environment;
  const roots = sandbox.roots(context.settings.sandbox, context.cwd, context.environment.env);
  let planned: PlannedChange[];
  try {
    // Sandboxed, a patch reads no more than its commands could: not the server's own files.
    const operations = parsePatch(patch);
    planned = await context.editor.use((editor) => planPatch(operations, cwd, roots === null ? [] : sandbox.masked(), editor));
  } catch (error) {
    await context.emit({ type: "itemStarted", item: item([], "inProgress") });
    await context.emit({ type: "itemCompleted", item: item([], "failed") });
    return `apply_patch verification failed: ${(error as Error).message}`;
  }
  const changes = planned.map(toWireChange);
  await context.emit({ type: "itemStarted", item: item(changes, "inProgress") });

  const targets = planned.flatMap((change) => (change.movePath ? [change.path, change.movePath] : [change.path]));
  const outside = await pathsOutsideWritableRoots(targets, roots);
  const touched = targets.map((file) => path.relative(context.cwd, file));
  const sessionKey = `patch:${planned.map((change) => change.movePath ?? change.path).sort().join("\n")}`;
  const decision = decidePatch({
    policy: context.settings.approvalPolicy,
    rules: context.environment.config.approval_rules ?? [],
    touched,
    outside,
    acceptedForSession: context.sessionApprovals.has(sessionKey),
  });
  if (decision.kind === "refuse") {
    await context.emit({ type: "itemCompleted", item: item(changes, decision.status) });
    return `apply_patch rejected: ${decision.message}`;
  }
  if (decision.kind === "ask") {
    const answer = await context.ask({ kind: "fileChange", itemId, reason: decision.reason, grantRoot: null, cwd: context.cwd, files: targets, patch });
    if (answer === "acceptForSession") context.sessionApprovals.add(sessionKey);
    if (typeof answer === "object" && "deniedByReviewer" in answer) {
      await context.emit({ type: "itemCompleted", item: item(changes, "declined") });
      return answer.deniedByReviewer;
    }
    if (answer === "decline" || answer === "cancel") {
      await context.emit({ type: "itemCompleted", item: item(changes, "declined") });
      if (answer === "cancel") throw new TurnCancelled();
      return "apply_patch was rejected by the user; the files were not changed.";
    }
    if (answer === "failed") {
      await context.emit({ type: "itemCompleted", item: item(changes, "failed") });
      return "apply_patch failed: the approval request got no valid answer; the files were not changed.";
    }
  }
  context.signal.throwIfAborted();
  // As the sandbox's processes may write, unless the user approved this patch's writes outside it.
  const confinement = outside.length === 0 && roots ? { ...roots, asSandbox: true } : await confinementAfterYes(roots, outside);
  try {
    await context.editor.use(async (editor) => {
      await commitPatch(planned, confinement);
      await showInEditor(planned, editor);
    });
  } catch (error) {
    await context.emit({ type: "itemCompleted", item: item(changes, "failed") });
    return `apply_patch failed: ${(error as Error).message}`;
  }
  for (const change of planned) {
    context.diff.record(change.path, change.before, change.movePath && change.movePath !== change.path ? null : change.after);
    if (change.movePath && change.movePath !== change.path) context.diff.record(change.movePath, null, change.after);
  }
  await context.emit({ type: "itemCompleted", item: item(changes, "completed") });
  await context.emit({
    type: "notify",
    method: "turn/diff/updated",
    params: { threadId: context.threadId, turnId: context.turnId, diff: await context.diff.render() },
  });
  const summary = planned.map((change) => `${change.kind === "add" ? "A" : change.kind === "delete" ? "D" : "M"} ${path.relative(cwd, change.movePath ?? change.path) || change.path}`);
  return `Success. Updated the following files:\n${summary.join("\n")}\n`;
}

function toWireChange(change: PlannedChange): FileUpdateChange {
  const kind =
    change.kind === "update" ? { type: "update" as const, move_path: change.movePath } : { type: change.kind };
  return { path: change.path, kind, diff: change.diff };
}

/**
 * The files a patch would write outside the writable roots or inside a protected path (symlinks
 * resolved as they are now; the write itself is confined again, so a later swap cannot redirect it).
 */
async function pathsOutsideWritableRoots(targets: readonly string[], roots: WritableRoots | null): Promise<string[]> {
  if (!roots) return [];
  const realRoots = await Promise.all(roots.roots.map(realLocation));
  const realProtected = await Promise.all(roots.protectedPaths.map(realLocation));
  const outside: string[] = [];
  for (const target of targets) {
    const real = await realLocation(target);
    const writable = realRoots.some((root) => isInside(real, root)) && !realProtected.some((protectedPath) => isInside(real, protectedPath));
    if (!writable) outside.push(target);
  }
  return outside;
}

/**
 * Where the write may land: the writable roots, plus each file the user approved outside them
 * (its real location), or, when its directory does not exist yet, the first missing directory on
 * its way (the patch creates it; nothing else is in it), with the protected paths that hold them
 * lifted. Never a directory that exists: a yes to `~/notes.md` is not a yes to all of `~` (the
 * server's home in it) for the patch's other files, which a command could redirect there while the
 * user reads the question. Null: full access, no confinement.
 */
async function confinementAfterYes(roots: WritableRoots | null, approvedOutside: readonly string[]): Promise<WritableRoots | null> {
  if (!roots || approvedOutside.length === 0) return roots;
  const approved = await Promise.all(approvedOutside.map(realLocation));
  const realProtected = await Promise.all(roots.protectedPaths.map(realLocation));
  return {
    roots: [...roots.roots, ...(await Promise.all(approved.map(approvedRoot)))],
    protectedPaths: roots.protectedPaths.filter((entry, k) => !approved.some((file) => isInside(file, entry) || isInside(file, realProtected[k]!))),
  };
}

/** `file` itself when its directory exists, else the topmost directory on its way that does not. */
async function approvedRoot(file: string): Promise<string> {
  let missing = file;
  for (let current = path.dirname(file); ; current = path.dirname(current)) {
    if ((await stat(current).catch(() => null))?.isDirectory() || path.dirname(current) === current) return missing;
    missing = current;
  }
}

/**
 * Gives the editor the new text of each file the patch wrote (after the write, so only what the
 * sandbox's rules let through reaches it): its buffers then show the change, unsaved edits and
 * all. An editor that fails to take it keeps the file as written.
 */
async function showInEditor(planned: readonly PlannedChange[], editor: EditorFiles | undefined): Promise<void> {
  const write = editor?.write;
  if (!write) return;
  for (const change of planned) {
    if (change.kind === "delete" || change.after === null) continue;
    await write(change.movePath ?? change.path, change.after).catch(() => undefined);
  }
}
