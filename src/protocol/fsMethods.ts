import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/**
 * An absolute path, as Codex's `AbsolutePathBuf`. POSIX only: this server runs where its sandbox
 * (bubblewrap) does. Relative paths are refused rather than resolved, because "relative to what"
 * differs between the client and the server.
 */
export const AbsolutePath = lazySchema(() =>
  z
    .string()
    .refine((value) => value.startsWith("/"), { message: "must be an absolute path (starting with /)" })
    // No system call takes one: Node would refuse it deep inside, naming its own arguments.
    .refine((value) => !value.includes("\u0000"), { message: "must not contain a NUL character" }),
);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Params of `fs/readFile`. */
export const FsReadFileParams = lazySchema(() => z.object({ path: AbsolutePath }));

/** Result of `fs/readFile`: the whole file, base64-encoded. */
export const FsReadFileResponse = lazySchema(() => z.object({ dataBase64: z.string() }));

/** Params of `fs/writeFile`: replaces the file (or creates it) with the decoded bytes. */
export const FsWriteFileParams = lazySchema(() => z.object({
  path: AbsolutePath,
  // Node's decoder skips characters it does not know; refuse them so no byte is silently lost.
  dataBase64: z.string().refine((value) => value.length % 4 === 0 && BASE64.test(value), {
    message: "must be standard base64 (A-Z, a-z, 0-9, +, /, padded with = to a multiple of 4 characters)",
  }),
}));

/** Params of `fs/createDirectory`; `recursive` (default true) also creates missing parents. */
export const FsCreateDirectoryParams = lazySchema(() => z.object({ path: AbsolutePath, recursive: z.boolean().nullable().optional() }));

/** Params of `fs/getMetadata`. */
export const FsGetMetadataParams = lazySchema(() => z.object({ path: AbsolutePath }));

/** Result of `fs/getMetadata`; times are Unix milliseconds, 0 when the filesystem lacks them. */
export const FsGetMetadataResponse = lazySchema(() => z.object({
  createdAtMs: z.number().int(),
  isDirectory: z.boolean(),
  isFile: z.boolean(),
  isSymlink: z.boolean(),
  modifiedAtMs: z.number().int(),
}));

/** Params of `fs/readDirectory`. */
export const FsReadDirectoryParams = lazySchema(() => z.object({ path: AbsolutePath }));

/** One direct child of a directory; the flags say what it resolves to (symlinks followed). */
export const FsReadDirectoryEntry = lazySchema(() => z.object({ fileName: z.string(), isDirectory: z.boolean(), isFile: z.boolean() }));

/** Result of `fs/readDirectory`. */
export const FsReadDirectoryResponse = lazySchema(() => z.object({ entries: z.array(FsReadDirectoryEntry) }));

/** Params of `fs/remove`; `recursive` and `force` (ignore a missing path) default to true. */
export const FsRemoveParams = lazySchema(() => z.object({
  path: AbsolutePath,
  recursive: z.boolean().nullable().optional(),
  force: z.boolean().nullable().optional(),
}));

/** Params of `fs/copy`; `recursive` is required to copy a directory. */
export const FsCopyParams = lazySchema(() => z.object({
  sourcePath: AbsolutePath,
  destinationPath: AbsolutePath,
  recursive: z.boolean().optional(),
}));

/** Params of `fuzzyFileSearch`: a newer search with the same `cancellationToken` cancels this one. */
export const FuzzyFileSearchParams = lazySchema(() => z.object({
  query: z.string(),
  roots: z.array(AbsolutePath),
  cancellationToken: z.string().nullable().optional(),
}));

/** One match: `path` is relative to `root` (as the client sent it); `indices` are the matched characters of `path`. */
export const FuzzyFileSearchResult = lazySchema(() => z.object({
  root: z.string(),
  path: z.string(),
  file_name: z.string(),
  match_type: z.enum(["file", "directory"]),
  score: z.number().int().nonnegative(),
  indices: z.array(z.number().int().nonnegative()).nullable().optional(),
}));

/** Result of `fuzzyFileSearch`: best match first; empty when the search was cancelled. */
export const FuzzyFileSearchResponse = lazySchema(() => z.object({ files: z.array(FuzzyFileSearchResult) }));

/** Params of `fs/watch`: notify `fs/changed` under the connection-scoped `watchId` when the file or directory (recursively) changes. */
export const FsWatchParams = lazySchema(() => z.object({ path: AbsolutePath, watchId: z.string() }));

/** Result of `fs/watch`: the canonical (real) path watched. */
export const FsWatchResponse = lazySchema(() => z.object({ path: z.string() }));

/** Params of `fs/unwatch`. */
export const FsUnwatchParams = lazySchema(() => z.object({ watchId: z.string() }));

/** `fs/changed`: paths that changed under a watch, gathered over a short interval. */
export const FsChangedNotification = lazySchema(() => z.object({ watchId: z.string(), changedPaths: z.array(z.string()) }));
