import type { FileHandle } from "node:fs/promises";
import { invalidParam, invalidRequest } from "../../protocol/errors.js";
import type { ClientRequestResult } from "../../protocol/methods.js";
import type { AllowedRoots } from "../../workspace/allowedRoots.js";
import { ConfinedFsError } from "../../workspace/confinedFs.js";
import { runSliced, TimeSlice } from "../../runtime/timeSlice.js";
import { compareMatches, SEARCH_SLICE_MS, searchFiles } from "../../workspace/fileSearch.js";
import { MAX_QUERY_WORDS, parseQuerySteps } from "../../workspace/fuzzyQuery.js";
import type { HandlerTable } from "../dispatcher.js";
import { FileSearches } from "../fileSearches.js";
import { reportingFsErrors } from "./fsFailure.js";

/** Matches returned per root, as Codex. */
export const MATCHES_PER_ROOT = 50;

type SearchResult = ClientRequestResult<"fuzzyFileSearch">;

/**
 * `fuzzyFileSearch`: files and directories under the given roots (each inside the allowed roots)
 * whose relative path contains the query as a subsequence, best first; a query of any length is
 * accepted, as Codex accepts it (an atom longer than a path fails on it at once), with at most
 * {@link MAX_QUERY_WORDS} distinct words. A search that a newer one with the
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
        // Parsed in slices too: a query may be megabytes, and repeats of a word cost one word.
        const query = await runSliced(parseQuerySteps(params.query), new TimeSlice(SEARCH_SLICE_MS), search.signal);
        if (!query) return { files: [] };
        if ("tooManyWords" in query) {
          throw invalidParam("fuzzyFileSearch", "query", `has more than ${MAX_QUERY_WORDS} distinct words`);
        }
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
