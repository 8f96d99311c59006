import { open } from "node:fs/promises";
import type { FeedbackSaveParams } from "../../protocol/feedbackMethods.js";
import { invalidRequest } from "../../protocol/errors.js";
import type { Clock } from "../../runtime/clock.js";
import { SERVER_VERSION } from "../../runtime/version.js";
import type { AllowedRoots } from "../../workspace/allowedRoots.js";
import { readTail } from "../../workspace/regularFiles.js";
import type { ZipEntry } from "../../workspace/zipArchive.js";
import type { ByteBudget } from "../byteBudget.js";
import type { HandlerTable } from "../dispatcher.js";
import { reportingFsErrors } from "./fsFailure.js";

/** Largest file put in a feedback archive; a bigger one is cut (its tail kept: logs end with what matters). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const MiB = 1024 * 1024;

/** What `feedback/save` reads: the roots files must be inside, the thread files, the clock. */
export interface FeedbackDeps {
  readonly roots: () => AllowedRoots;
  /** The path of a thread's file, if it is stored. */
  readonly threadFile: (threadId: string) => string | undefined;
  readonly clock: Clock;
  /** The server's budget of bytes read at once (fs/readFile's): the logs are held until the archive is written. */
  readonly reads: ByteBudget;
}

/**
 * `feedback/save`: a ZIP at `savePath` (a path not used yet, inside the allowed roots like every
 * client file request) with `feedback.json` (classification, reason, tags, thread, versions), and
 * with `includeLogs` the thread's file and the `extraLogFiles` (also inside the roots). Nothing is
 * uploaded: feedback/upload is out of scope.
 */
export function feedbackHandlers(deps: FeedbackDeps): Pick<HandlerTable, "feedback/save"> {
  return {
    "feedback/save": async (params) => {
      const files = await deps.roots().confined();
      const exists = await files.stat(params.savePath).then(
        () => true,
        () => false,
      );
      if (exists) throw invalidRequest(`feedback/save: ${params.savePath} already exists; give a path not used yet`);
      // The logs a request names are held at once (and copied into the archive): they count against
      // the read budget, so neither one request naming many nor many requests hold more.
      const releases: Array<() => void> = [];
      let total = 0;
      const reserve = (bytes: number) => {
        total += bytes;
        if (total > deps.reads.limit) {
          throw invalidRequest(
            `feedback/save: the logs to include come to more than the ${deps.reads.limit / MiB} MiB read at once (each is cut to its last ${MAX_FILE_BYTES / MiB} MiB); name fewer extraLogFiles`,
          );
        }
        releases.push(deps.reads.reserve(bytes));
      };
      try {
        const entries = [{ name: "feedback.json", data: Buffer.from(JSON.stringify(summary(params, deps.clock), null, 2) + "\n") }, ...(await logs(params, deps, reserve))];
        // Loaded here, not at start-up: zlib is only needed for this.
        const { zipArchive } = await import("../../workspace/zipArchive.js");
        const archive = zipArchive(entries, new Date(deps.clock.nowMs()));
        await reportingFsErrors("feedback/save", params.savePath, () => files.writeFile(params.savePath, archive));
      } finally {
        for (const release of releases) release();
      }
      return { savedPath: params.savePath, threadId: params.threadId ?? "", promptHash: null };
    },
  };
}

function summary(params: FeedbackSaveParams, clock: Clock): Record<string, unknown> {
  return {
    classification: params.classification,
    reason: params.reason ?? null,
    tags: params.tags ?? {},
    threadId: params.threadId ?? null,
    server: `agent-app-server ${SERVER_VERSION}`,
    platform: `${process.platform} ${process.arch}, Node ${process.versions.node}`,
    createdAt: new Date(clock.nowMs()).toISOString(),
  };
}

/**
 * With `includeLogs`: the thread's file and the extra log files, each cut to its last 16 MiB. Only
 * that tail is read (a file whole could be gigabytes); `reserve` is told each tail's size first.
 */
async function logs(params: FeedbackSaveParams, deps: FeedbackDeps, reserve: (bytes: number) => void): Promise<ZipEntry[]> {
  if (!params.includeLogs) return [];
  const entries: ZipEntry[] = [];
  const threadFile = params.threadId ? deps.threadFile(params.threadId) : undefined;
  if (threadFile) entries.push({ name: `thread-${params.threadId}.jsonl`, data: await threadTail(threadFile, reserve) });
  const files = await deps.roots().confined();
  for (const [index, file] of (params.extraLogFiles ?? []).entries()) {
    const data = await reportingFsErrors("feedback/save", file, () => files.readFile(file, { tailBytes: MAX_FILE_BYTES, reserve }));
    entries.push({ name: `logs/${index + 1}-${file.split("/").pop() || "log"}`, data });
  }
  return entries;
}

/** The last {@link MAX_FILE_BYTES} of a thread's file (the server's own). */
async function threadTail(file: string, reserve: (bytes: number) => void): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    reserve(Math.min(size, MAX_FILE_BYTES));
    return await readTail(handle, size, MAX_FILE_BYTES);
  } finally {
    await handle.close();
  }
}
