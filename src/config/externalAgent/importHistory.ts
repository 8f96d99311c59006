/**
 * The record of external-agent imports (`externalAgentConfig/import/readHistories`): this server's
 * own imports and those a client recorded, in `external_agent_imports.json` in the home.
 */
import path from "node:path";
import * as z from "zod";
import { ImportHistory } from "../../protocol/externalAgentMethods.js";
import { JsonStateFile } from "../../runtime/jsonStateFile.js";

const HistoryFile = z.object({ imports: z.array(ImportHistory) });
type HistoryFile = z.infer<typeof HistoryFile>;

// Old entries go first once there are this many: the file stays small.
const MAX_ENTRIES = 200;

/** The recorded imports, oldest first on disk. */
export class ImportHistoryStore {
  private readonly file: JsonStateFile<HistoryFile>;

  constructor(home: string) {
    this.file = new JsonStateFile(path.join(home, "external_agent_imports.json"), HistoryFile, { imports: [] });
  }

  /** Reads the file (missing or unreadable: no history). */
  load(): Promise<void> {
    return this.file.load();
  }

  /** Every recorded import, newest first. */
  list(): ImportHistory[] {
    return [...this.file.state.imports].reverse();
  }

  /** Records one import. */
  record(entry: ImportHistory): Promise<void> {
    return this.file.change((draft) => {
      draft.imports.push(entry);
      draft.imports.splice(0, Math.max(0, draft.imports.length - MAX_ENTRIES));
    });
  }
}
