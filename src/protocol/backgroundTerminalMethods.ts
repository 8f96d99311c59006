import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** Params of `thread/backgroundTerminals/list` (experimental). */
export const ThreadBackgroundTerminalsListParams = lazySchema(() => z.object({
  threadId: z.string(),
  cursor: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
}));

/** A command the model left running after its turn ended. */
export const ThreadBackgroundTerminal = lazySchema(() => z.object({
  processId: z.string(),
  itemId: z.string(),
  command: z.string(),
  cwd: z.string(),
  osPid: z.number().int().nonnegative().nullable().optional(),
  cpuPercent: z.number().nullable().optional(),
  rssKb: z.number().int().nonnegative().nullable().optional(),
}));

/** Result of `thread/backgroundTerminals/list`. */
export const ThreadBackgroundTerminalsListResponse = lazySchema(() => z.object({ data: z.array(ThreadBackgroundTerminal), nextCursor: z.string().nullable().optional() }));

/** Params of `thread/backgroundTerminals/terminate` (experimental). */
export const ThreadBackgroundTerminalsTerminateParams = lazySchema(() => z.object({ threadId: z.string(), processId: z.string() }));

/** Result of `thread/backgroundTerminals/terminate`: false when no running command has that id. */
export const ThreadBackgroundTerminalsTerminateResponse = lazySchema(() => z.object({ terminated: z.boolean() }));

/** Params of `thread/backgroundTerminals/clean` (experimental): stops every background terminal of the thread. */
export const ThreadBackgroundTerminalsCleanParams = lazySchema(() => z.object({ threadId: z.string() }));
