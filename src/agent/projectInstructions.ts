import { readFile, stat } from "node:fs/promises";
import path from "node:path";

/** AGENTS.md files found for a cwd, root first, and their combined text. */
export interface ProjectInstructions {
  readonly sources: readonly string[];
  readonly text: string | null;
}

// Codex's `project_doc_max_bytes` default: the combined text is cut at 32 KiB.
const MAX_BYTES = 32 * 1024;
const NAMES = ["AGENTS.override.md", "AGENTS.md"];

/**
 * Collects instruction files as Codex does: from the repository root (the nearest ancestor with
 * `.git`, else the cwd alone) down to the cwd, one per directory (`AGENTS.override.md` beats
 * `AGENTS.md`), concatenated root first so deeper files can refine shallower ones.
 */
export async function loadProjectInstructions(cwd: string): Promise<ProjectInstructions> {
  const dirs = await directoriesFromRoot(path.resolve(cwd));
  const sources: string[] = [];
  const parts: string[] = [];
  let budget = MAX_BYTES;
  for (const dir of dirs) {
    for (const name of NAMES) {
      const file = path.join(dir, name);
      const text = await readFile(file, "utf8").catch(() => null);
      if (text === null) continue;
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

/** The directories from the repository root (nearest ancestor with `.git`, else `cwd` alone) down to `cwd`. */
export async function directoriesFromRoot(cwd: string): Promise<string[]> {
  const chain: string[] = [];
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    chain.push(dir);
    if (await exists(path.join(dir, ".git"))) return chain.reverse();
    if (path.dirname(dir) === dir) return [cwd];
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
