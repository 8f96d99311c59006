/** Finding the repository a directory belongs to, as Codex does: the nearest ancestor with `.git`. */
import { stat } from "node:fs/promises";
import path from "node:path";

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
