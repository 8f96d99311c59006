import { copyFile, cp, lstat, mkdir, readdir, readFile, rm, rmdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { invalidRequest } from "../../protocol/errors.js";
import type { AllowedRoots } from "../../workspace/allowedRoots.js";
import type { HandlerTable } from "../dispatcher.js";
import { reportingFsErrors } from "./fsFailure.js";

type FsHandlers = Pick<
  HandlerTable,
  "fs/readFile" | "fs/writeFile" | "fs/createDirectory" | "fs/getMetadata" | "fs/readDirectory" | "fs/remove" | "fs/copy"
>;

/** Largest file `fs/readFile` returns; its answer is a third larger again, as base64 on one line. */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/**
 * `fs/*`: the client's view of the host filesystem, confined to the allowed roots. Every path is
 * checked (symlinks resolved) before it is touched, and the checked real path is the one used.
 */
export function fsHandlers(roots: AllowedRoots): FsHandlers {
  return {
    "fs/readFile": async (params) => {
      const real = await roots.confine(params.path);
      return reportingFsErrors("fs/readFile", params.path, async () => {
        const info = await stat(real);
        if (!info.isFile() && !info.isDirectory()) {
          // A FIFO or device could block or never end.
          throw invalidRequest(`fs/readFile: ${params.path} is not a regular file`, { path: params.path });
        }
        if (info.size > MAX_READ_BYTES) {
          throw invalidRequest(
            `fs/readFile: ${params.path} is ${mebibytes(info.size)} MiB; files larger than ${mebibytes(MAX_READ_BYTES)} MiB are not read`,
            { path: params.path, size: info.size, limit: MAX_READ_BYTES },
          );
        }
        return { dataBase64: (await readFile(real)).toString("base64") };
      });
    },
    "fs/writeFile": async (params) => {
      const real = await roots.confine(params.path);
      await reportingFsErrors(
        "fs/writeFile",
        params.path,
        () => writeFile(real, Buffer.from(params.dataBase64, "base64")),
        { ENOENT: "cannot be written: its directory does not exist (create it with fs/createDirectory)" },
      );
      return {};
    },
    "fs/createDirectory": async (params) => {
      const real = await roots.confine(params.path);
      const recursive = params.recursive ?? true;
      await reportingFsErrors("fs/createDirectory", params.path, () => mkdir(real, { recursive }), {
        ENOENT: "cannot be created: its parent directory does not exist (pass recursive: true to create it too)",
      });
      return {};
    },
    "fs/getMetadata": async (params) => {
      const entry = await roots.confine(params.path, "entry");
      const real = await roots.confine(params.path);
      return reportingFsErrors("fs/getMetadata", params.path, async () => {
        const link = await lstat(entry);
        const info = link.isSymbolicLink() ? await stat(real) : link;
        return {
          // Node reports 0 where the filesystem keeps no creation time, as the reference asks.
          createdAtMs: Math.floor(info.birthtimeMs),
          isDirectory: info.isDirectory(),
          isFile: info.isFile(),
          isSymlink: link.isSymbolicLink(),
          modifiedAtMs: Math.floor(info.mtimeMs),
        };
      });
    },
    "fs/readDirectory": async (params) => {
      const real = await roots.confine(params.path);
      return reportingFsErrors("fs/readDirectory", params.path, async () => {
        const children = await readdir(real, { withFileTypes: true });
        const entries = await Promise.all(
          children.map(async (child) => {
            if (!child.isSymbolicLink()) return { fileName: child.name, isDirectory: child.isDirectory(), isFile: child.isFile() };
            const target = await stat(path.join(real, child.name)).catch(() => undefined);
            return { fileName: child.name, isDirectory: target?.isDirectory() ?? false, isFile: target?.isFile() ?? false };
          }),
        );
        return { entries: entries.sort((a, b) => (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0)) };
      });
    },
    "fs/remove": async (params) => {
      // The entry itself: removing a symlink never touches what it points to.
      const entry = await roots.confine(params.path, "entry");
      const recursive = params.recursive ?? true;
      const force = params.force ?? true;
      await reportingFsErrors("fs/remove", params.path, async () => {
        const info = await lstat(entry).catch((error: NodeJS.ErrnoException) => {
          if (force && error.code === "ENOENT") return undefined;
          throw error;
        });
        if (!info) return;
        if (info.isDirectory() && !recursive) await rmdir(entry);
        else await rm(entry, { recursive, force });
      });
      return {};
    },
    "fs/copy": async (params) => {
      const source = await roots.confine(params.sourcePath);
      const destination = await roots.confine(params.destinationPath);
      const info = await reportingFsErrors("fs/copy", params.sourcePath, () => stat(source));
      if (info.isDirectory() && !params.recursive) {
        throw invalidRequest(`fs/copy: ${params.sourcePath} is a directory; pass recursive: true to copy a directory tree`, {
          path: params.sourcePath,
        });
      }
      await reportingFsErrors(
        "fs/copy",
        params.destinationPath,
        // Symlinks inside a copied tree are copied as symlinks, never followed out of the roots.
        () => (info.isDirectory() ? cp(source, destination, { recursive: true }) : copyFile(source, destination)),
        { ENOENT: "cannot be written: its directory does not exist (create it with fs/createDirectory)" },
      );
      return {};
    },
  };
}

function mebibytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1);
}
