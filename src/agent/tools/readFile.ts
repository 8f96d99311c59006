import path from "node:path";
import * as z from "zod";
import { lazySchema } from "../../protocol/lazySchema.js";
import { ConfinedFs, ConfinedFsError } from "../../workspace/confinedFs.js";
import type { ToolCall } from "../conversation.js";
import { parseArguments } from "./arguments.js";
import { readableRoots } from "./readableRoots.js";
import type { Tool, ToolContext } from "./tool.js";

/** Lines read when the model gives no limit, and the longest line shown whole (Codex's). */
const DEFAULT_LIMIT = 2000;
const MAX_LINE_CHARS = 500;
/** Files past this size are not read: a model reads code, not logs. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

const ReadFileArguments = lazySchema(() =>
  z.object({
    file_path: z.string().min(1),
    offset: z.number().int().positive().optional(),
    limit: z.number().int().positive().optional(),
    // Codex's indentation mode is taken and read as a slice.
    mode: z.string().optional(),
    indentation: z.unknown().optional(),
  }),
);

/**
 * `read_file`, Codex's tool, offered when the thread's client shows the model its editor's files
 * (ACP; in a sandbox, only while no command runs: see turnEditor.ts): a file's lines (`L12: text`) as the editor has them,
 * unsaved edits and all, so the model reads what the user sees. The same places as `view_image` may be read (the cwd and writable
 * roots, never the server's own files), and the file must pass the disk's checks (a regular file,
 * at most 16 MiB) before the editor is asked. The read is a command item with a read action, as a
 * `cat` of the file is.
 */
export const readFileTool: Tool = {
  spec: {
    kind: "function",
    name: "read_file",
    description: "Reads a file of the workspace as the user's editor has it (unsaved edits included), as numbered lines. Prefer it to cat or sed for reading files.",
    parameters: {
      type: "object",
      properties: {
        file_path: { type: "string", description: "Path of the file, absolute or relative to the working directory." },
        offset: { type: "number", description: "The first line to read, from 1 (default 1)." },
        limit: { type: "number", description: `How many lines to read (default ${DEFAULT_LIMIT}).` },
      },
      required: ["file_path"],
      additionalProperties: false,
    },
  },
  async run(call: ToolCall, context: ToolContext): Promise<string> {
    const parsed = parseArguments(call, ReadFileArguments);
    if (!parsed.ok) return parsed.message;
    const file = path.resolve(context.cwd, parsed.value.file_path);
    const name = path.relative(context.cwd, file) || path.basename(file);
    const item = {
      type: "commandExecution" as const,
      id: call.callId,
      command: `read_file ${name}`,
      cwd: context.cwd,
      processId: null,
      source: "agent" as const,
      commandActions: [{ type: "read" as const, command: `read_file ${name}`, name: path.basename(file), path: name }],
      pluginId: null,
      scriptPath: null,
    };
    await context.emit({ type: "itemStarted", item: { ...item, status: "inProgress", aggregatedOutput: null, exitCode: null, durationMs: null } });
    let output: string;
    let ok = true;
    try {
      output = numbered(await textOf(file, context), parsed.value.offset ?? 1, parsed.value.limit ?? DEFAULT_LIMIT);
    } catch (error) {
      ok = false;
      output = `read_file failed: ${(error as Error).message}`;
    }
    await context.emit({ type: "itemCompleted", item: { ...item, status: ok ? "completed" : "failed", aggregatedOutput: output, exitCode: ok ? 0 : 1, durationMs: 0 } });
    return output;
  },
};

/** The file's text: checked on disk first, then as the editor has it (as the disk has it while the editor may not be used). */
async function textOf(file: string, context: ToolContext): Promise<string> {
  const files = await ConfinedFs.create(readableRoots(context));
  return context.editor.use(async (editor) => {
    const onDisk = await files.readFile(file, { maxBytes: MAX_FILE_BYTES }).catch((error: unknown) => {
      if (error instanceof ConfinedFsError && error.code === "EOUTSIDE") throw new Error(`${file} is outside the directories this turn may read: the working directory and the writable roots`);
      throw error;
    });
    return (await editor?.read(file)) ?? onDisk.toString("utf8");
  });
}

function numbered(text: string, offset: number, limit: number): string {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  if (offset > Math.max(lines.length, 1)) throw new Error(`offset ${offset} is past the end of the file (${lines.length} lines)`);
  return lines
    .slice(offset - 1, offset - 1 + limit)
    .map((line, index) => `L${offset + index}: ${line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line}`)
    .join("\n");
}
