import type { FileHandle } from "node:fs/promises";
import { invalidRequest } from "../../protocol/errors.js";
import type { ClientRequestResult } from "../../protocol/methods.js";
import type { AllowedRoots } from "../../workspace/allowedRoots.js";
import { ConfinedFsError } from "../../workspace/confinedFs.js";
import { compareMatches, searchFiles } from "../../workspace/fileSearch.js";
import { parseQuery } from "../../workspace/fuzzyMatch.js";
import type { HandlerTable } from "../dispatcher.js";
import { FileSearches } from "../fileSearches.js";
import { reportingFsErrors } from "./fsFailure.js";

/** Matches returned per root, as Codex. */
export const MATCHES_PER_ROOT = 50;

type SearchResult = ClientRequestResult<"fuzzyFileSearch">;

/**
 * `fuzzyFileSearch`: files and directories under the given roots (each inside the allowed roots)
 * whose relative path contains the query as a subsequence, best first; a query of any length is
 * accepted, as Codex accepts it (an atom longer than a path fails on it at once). A search that a newer one with the
 * same `cancellationToken` (from the same connection) replaces, or whose connection closes,
 * answers `{files: []}`.
 */
export function fileSearchHandlers(roots: () => AllowedRoots): Pick<HandlerTable, "fuzzyFileSearch"> {
  const searches = new FileSearches();
  return {
    fuzzyFileSearch: async (params, { connection }) => {
      // Before any await, so a newer search arriving right after cancels this one.
      const search = searches.begin(connection, params.cancellationToken ?? undefined);
      try {
        const query = parseQuery(params.query);
        const searchRoots = await Promise.allSettled(params.roots.map(async (root) => ({ root, handle: await searchRoot(roots(), root) })));
        try {
          const refused = searchRoots.find((opened) => opened.status === "rejected");
          if (refused) throw refused.reason;
          const files: SearchResult["files"] = [];
          if (query.atoms.length === 0) return { files };
          for (const opened of searchRoots) {
            if (opened.status === "rejected") continue;
            const { root, handle } = opened.value;
            for (const match of await searchFiles(handle, query, MATCHES_PER_ROOT, search.signal)) {
              const { path, fileName, matchType, score, indices } = match;
              files.push({ root, path, file_name: fileName, match_type: matchType, score, indices });
            }
          }
          return { files: search.signal.aborted ? [] : files.sort(compareMatches) };
        } finally {
          for (const opened of searchRoots) if (opened.status === "fulfilled") await opened.value.handle.close();
        }
      } finally {
        search.end();
      }
    },
  };
}

/** The directory to search for `root`, open: inside the allowed roots, existing, a directory. */
async function searchRoot(roots: AllowedRoots, root: string): Promise<FileHandle> {
  return reportingFsErrors("fuzzyFileSearch", root, async () => {
    const opened = await (await roots.confined()).openDirectory(root).catch((error: unknown) => {
      if (error instanceof ConfinedFsError && error.code === "ENOTDIR") {
        throw invalidRequest(`fuzzyFileSearch: root ${root} is not a directory`, { path: root });
      }
      throw error;
    });
    return opened.handle;
  });
}
