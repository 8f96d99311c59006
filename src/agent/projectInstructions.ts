import path from "node:path";
import { ConfinedFs } from "../workspace/confinedFs.js";
import { readRegularFile } from "../workspace/regularFiles.js";
import { directoriesFromRoot } from "../workspace/repository.js";

/** AGENTS.md files found for a cwd, root first, and their combined text. */
export interface ProjectInstructions {
  readonly sources: readonly string[];
  readonly text: string | null;
}

// Codex's `project_doc_max_bytes` default: the combined text is cut at 32 KiB.
const MAX_BYTES = 32 * 1024;
const NAMES = ["AGENTS.override.md", "AGENTS.md"];

/**
 * Collects instruction files as Codex does: the user's own in the server's home first, then from
 * the repository root (the nearest ancestor with `.git`, else the cwd alone) down to the cwd, one
 * per directory (`AGENTS.override.md` beats `AGENTS.md`), concatenated in that order so deeper
 * files can refine shallower ones.
 */
export async function loadProjectInstructions(cwd: string, home: string, readProjectFile: InstructionReader = readInstructions): Promise<ProjectInstructions> {
  const resolved = path.resolve(cwd);
  const dirs = [path.resolve(home), ...(await directoriesFromRoot(resolved)).filter((dir) => dir !== path.resolve(home))];
  const sources: string[] = [];
  const parts: string[] = [];
  let budget = MAX_BYTES;
  for (const dir of dirs) {
    for (const name of NAMES) {
      const file = path.join(dir, name);
      // Only what fits the budget is read; a FIFO or device in a repository is passed over, never waited on.
      const read = dir === path.resolve(home) ? readInstructions : readProjectFile;
      const bytes = await read(file, Math.max(budget, 1)).catch(() => null);
      if (bytes === null) continue;
      const text = bytes.toString("utf8");
      if (text.trim() && budget > 0) {
        const bytes = Buffer.from(text);
        const kept = bytes.length > budget ? bytes.subarray(0, budget).toString("utf8") : text;
        budget -= Math.min(bytes.length, budget);
        sources.push(file);
        parts.push(`# AGENTS.md instructions for ${dir}\n\n<INSTRUCTIONS>\n${kept.trim()}\n</INSTRUCTIONS>`);
      }
      break;
    }
  }
  return { sources, text: parts.length > 0 ? parts.join("\n\n") : null };
}

/** Reads the first `maxBytes` of an instruction file. */
export type InstructionReader = (file: string, maxBytes: number) => Promise<Buffer>;

/** Reads an instruction file wherever it points (the user's own, in the home; any under full access). */
function readInstructions(file: string, maxBytes: number): Promise<Buffer> {
  return readRegularFile(file, maxBytes, { truncate: true });
}

/**
 * Reads a project's instruction files for a sandboxed turn: only what its processes could read
 * (not the server's own files, which `hidden` lists, nor files their modes keep from them). The
 * model may have written them, or made one a symlink to the server's home.
 */
export function sandboxedInstructionReader(hidden: readonly string[]): InstructionReader {
  let files: Promise<ConfinedFs> | undefined;
  return async (file, maxBytes) => {
    files ??= ConfinedFs.create({ roots: ["/"], protectedPaths: [], hiddenPaths: hidden, asSandbox: true });
    return (await files).readFile(file, { headBytes: maxBytes });
  };
}
