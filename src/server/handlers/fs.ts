import { realpath } from "node:fs/promises";
import { invalidRequest } from "../../protocol/errors.js";
import type { Clock } from "../../runtime/clock.js";
import type { Logger } from "../../runtime/logger.js";
import { base64Json } from "../../transport/slicedJson.js";
import type { AllowedRoots } from "../../workspace/allowedRoots.js";
import { ConfinedFsError, type ConfinedFs } from "../../workspace/confinedFs.js";
import type { HandlerTable } from "../dispatcher.js";
import type { ByteBudget } from "../byteBudget.js";
import type { FsWatches } from "../fsWatches.js";
import { createNotification } from "../notifications.js";
import { reportingFsErrors } from "./fsFailure.js";

type FsHandlers = Pick<
  HandlerTable,
  "fs/readFile" | "fs/writeFile" | "fs/createDirectory" | "fs/getMetadata" | "fs/readDirectory" | "fs/remove" | "fs/copy" | "fs/watch" | "fs/unwatch"
>;

/** What `fs/*` needs besides the roots: the connections' watches, the clock that stamps `fs/changed`, and the budget of bytes read at once. */
export interface FsDeps {
  readonly watches: FsWatches;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Bytes of files `fs/readFile` holds at once, over all connections. */
  readonly reads: ByteBudget;
}

/** Largest file `fs/readFile` returns; its answer is a third larger again, as base64 on one line. */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/** Why a watch could not start, for the errno codes peculiar to watching. */
const WATCH_REASONS: Record<string, string> = { ENOSPC: "cannot be watched: the system's limit of file watches (inotify) is reached" };

const NO_DIRECTORY = "cannot be written: its directory does not exist (create it with fs/createDirectory)";

/**
 * `fs/*`: the client's view of the host filesystem, confined to the allowed roots. Every operation
 * goes through the roots' {@link ConfinedFs}: each path component is opened relative to a checked
 * directory, so what was checked is what is touched even while the tree changes underneath.
 */
export function fsHandlers(roots: () => AllowedRoots, { watches, clock, logger, reads }: FsDeps): FsHandlers {
  const run = <T>(method: string, shownPath: string, operation: (files: ConfinedFs) => Promise<T>, reasons?: Record<string, string>) =>
    reportingFsErrors(method, shownPath, async () => operation(await roots().confined()), reasons);
  // A file the whole budget could never hold is refused as too large (-32600), not as "retry later".
  const maxBytes = Math.min(MAX_READ_BYTES, reads.limit);
  return {
    "fs/readFile": async (params, { whenAnswerWritten }) => {
      // Reads at once must fit the budget, by the size each file has when opened and what it grew by
      // while read (a file opened empty may grow to maxBytes); past it -32001.
      // Held until the answer's line is in the stream: its base64 and JSON line are most of a read's memory.
      const reserve = (bytes: number) => whenAnswerWritten(reads.reserve(bytes));
      const bytes = await run("fs/readFile", params.path, (files) => files.readFile(params.path, { maxBytes, reserve }));
      return { dataBase64: base64Json(bytes) };
    },
    "fs/writeFile": async (params) => {
      const data = Buffer.from(params.dataBase64, "base64");
      await run("fs/writeFile", params.path, (files) => files.writeFile(params.path, data), { ENOENT: NO_DIRECTORY });
      return {};
    },
    "fs/createDirectory": async (params) => {
      const recursive = params.recursive ?? true;
      await run("fs/createDirectory", params.path, (files) => files.mkdir(params.path, { recursive }), {
        ENOENT: "cannot be created: its parent directory does not exist (pass recursive: true to create it too)",
      });
      return {};
    },
    "fs/getMetadata": async (params) => {
      const { entry, target } = await run("fs/getMetadata", params.path, (files) => files.getMetadata(params.path));
      return {
        // Node reports 0 where the filesystem keeps no creation time, as the reference asks.
        createdAtMs: Math.floor(target.birthtimeMs),
        isDirectory: target.isDirectory(),
        isFile: target.isFile(),
        isSymlink: entry.isSymbolicLink(),
        modifiedAtMs: Math.floor(target.mtimeMs),
      };
    },
    "fs/readDirectory": async (params) => {
      const entries = await run("fs/readDirectory", params.path, (files) => files.readDirectory(params.path));
      return { entries: entries.map(({ name, isDirectory, isFile }) => ({ fileName: name, isDirectory, isFile })) };
    },
    "fs/watch": async (params, { connection }) => {
      // The real path is watched, and it must be inside the roots (a symlink out of them is refused).
      const { target, isDirectory } = await run("fs/watch", params.path, async (files) => {
        const info = await files.stat(params.path);
        const real = await realpath(params.path);
        files.check(real, "read", params.path);
        return { target: real, isDirectory: info.isDirectory() };
      }, WATCH_REASONS);
      const { PathWatcher } = await import("../../workspace/pathWatcher.js");
      await reportingFsErrors("fs/watch", params.path, async () =>
        watches.add(connection, params.watchId, () =>
          new PathWatcher(
            target,
            isDirectory,
            (changedPaths) => void connection.notify(createNotification(clock, "fs/changed", { watchId: params.watchId, changedPaths })),
            (error) => logger.warn({ err: error, watchId: params.watchId, path: target }, "an fs/watch stopped"),
          ),
        ),
      WATCH_REASONS);
      return { path: target };
    },
    "fs/unwatch": (params, { connection }) => {
      if (!watches.remove(connection, params.watchId)) throw invalidRequest(`no fs/watch with id ${JSON.stringify(params.watchId)} on this connection`);
      return {};
    },
    "fs/remove": async (params) => {
      // The entry itself: removing a symlink never touches what it points to.
      const options = { recursive: params.recursive ?? true, force: params.force ?? true };
      await run("fs/remove", params.path, (files) => files.remove(params.path, options));
      return {};
    },
    "fs/copy": async (params) => {
      const { sourcePath, destinationPath } = params;
      const copy = (files: ConfinedFs) =>
        files.copy(sourcePath, destinationPath, { recursive: params.recursive ?? false }).catch((error: unknown) => {
          // A directory copied without `recursive` is the client's mistake, not an I/O failure.
          if (error instanceof ConfinedFsError && error.code === "EISDIR" && error.path === sourcePath) {
            throw invalidRequest(`fs/copy: ${sourcePath} is a directory; pass recursive: true to copy a directory tree`, { path: sourcePath });
          }
          throw error;
        });
      await run("fs/copy", destinationPath, copy, { ENOENT: NO_DIRECTORY });
      return {};
    },
  };
}
