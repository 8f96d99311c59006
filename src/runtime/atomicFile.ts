import { randomUUID } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Replaces `file` whole: the data goes to a temp file beside it, which is renamed into place, so a
 * reader sees the old file or the new one, never half of one. A failed write (a full disk) leaves
 * the old file and removes the temp. `mode` sets the permissions of the new file (0600 for secrets).
 */
export async function writeFileAtomic(file: string, data: string, options: { readonly mode?: number } = {}): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`);
  try {
    await writeFile(temp, data, options.mode === undefined ? {} : { mode: options.mode });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
