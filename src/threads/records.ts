import * as z from "zod";
import { lazySchema } from "../protocol/lazySchema.js";
import { DynamicToolSpec } from "../protocol/clientTools.js";
import { ThreadGoal } from "../protocol/goalMethods.js";
import { ThreadItem } from "../protocol/items.js";
import { GitInfo, SessionSource } from "../protocol/thread.js";
import { TokenUsageBreakdown, TurnError, TurnStatus } from "../protocol/turn.js";
import { ConversationItem, TurnSettings } from "../agent/index.js";

/** What never changes about a thread: the first record of its file. */
export const ThreadIdentity = lazySchema(() => z.object({
  id: z.string(),
  sessionId: z.string(),
  createdAtMs: z.number().int(),
  forkedFromId: z.string().nullable().optional(),
  source: SessionSource,
  threadSource: z.string().nullable().optional(),
  cliVersion: z.string(),
  originator: z.string().nullable().optional(),
  /** Tools the client declared at thread start; it runs them when the model calls them. */
  dynamicTools: z.array(DynamicToolSpec).optional(),
}));
export type ThreadIdentity = z.infer<typeof ThreadIdentity>;

/** One line of a thread file. `at` is Unix ms. */
export const ThreadRecord = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("thread"), at: z.number(), identity: ThreadIdentity, settings: TurnSettings }),
  z.object({ type: z.literal("settings"), at: z.number(), settings: TurnSettings.partial() }),
  z.object({ type: z.literal("name"), at: z.number(), name: z.string().nullable() }),
  z.object({ type: z.literal("gitInfo"), at: z.number(), gitInfo: GitInfo.nullable() }),
  z.object({ type: z.literal("turnStarted"), at: z.number(), turnId: z.string() }),
  z.object({ type: z.literal("item"), at: z.number(), turnId: z.string(), item: ThreadItem }),
  /** Entries appended to the model-visible history. */
  z.object({ type: z.literal("model"), at: z.number(), turnId: z.string(), items: z.array(ConversationItem) }),
  /** A compaction: `items` replace the whole model-visible history before them. */
  z.object({ type: z.literal("compacted"), at: z.number(), turnId: z.string(), items: z.array(ConversationItem) }),
  /** `thread/revert`: the turn `beforeTurnId` and every later one are gone from the history (files are untouched). */
  z.object({ type: z.literal("reverted"), at: z.number(), beforeTurnId: z.string() }),
  /** The thread's goal as a client set it or a turn charged it; null once cleared. */
  z.object({ type: z.literal("goal"), at: z.number(), goal: ThreadGoal.nullable() }),
  /** The user has seen the thread up to here (`thread/readState/update`): no turn before it is unread. */
  z.object({ type: z.literal("read"), at: z.number() }),
  /** Token usage of one model response. */
  z.object({ type: z.literal("usage"), at: z.number(), turnId: z.string(), usage: TokenUsageBreakdown }),
  z.object({
    type: z.literal("turnCompleted"),
    at: z.number(),
    turnId: z.string(),
    status: TurnStatus,
    error: TurnError.nullable().optional(),
  }),
]));
export type ThreadRecord = z.infer<typeof ThreadRecord>;
