import * as z from "zod";
import { lazySchema } from "./lazySchema.js";
import { RequestId } from "./jsonrpc.js";
import { ApprovalsReviewer, AskForApproval, ReasoningSummary, SandboxPolicy } from "./policy.js";
import { ThreadItem } from "./items.js";
import { CollaborationMode, Thread, ThreadReadState, ThreadStatus } from "./thread.js";
import { ThreadTokenUsage, Turn, TurnError, TurnPlanStep } from "./turn.js";

/** `thread/started`: a new thread exists (after `thread/start` / `thread/fork` responses). */
export const ThreadStartedNotification = lazySchema(() => z.object({ thread: Thread }));

/** `thread/status/changed`: every status transition of a loaded thread. */
export const ThreadStatusChangedNotification = lazySchema(() => z.object({ threadId: z.string(), status: ThreadStatus }));

/** `thread/archived`, `thread/unarchived`, `thread/closed`: a thread-level event with no payload. */
export const ThreadIdNotification = lazySchema(() => z.object({ threadId: z.string() }));

/** `thread/name/updated`. */
export const ThreadNameUpdatedNotification = lazySchema(() => z.object({
  threadId: z.string(),
  threadName: z.string().nullable().optional(),
}));

/** `thread/tokenUsage/updated`: after every model response. */
export const ThreadTokenUsageUpdatedNotification = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  tokenUsage: ThreadTokenUsage,
}));

/** `turn/started` and `turn/completed`. */
export const TurnNotification = lazySchema(() => z.object({ threadId: z.string(), turn: Turn }));

/** `item/started`. */
export const ItemStartedNotification = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  item: ThreadItem,
  startedAtMs: z.number().int(),
}));

/** `item/completed`. */
export const ItemCompletedNotification = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  item: ThreadItem,
  completedAtMs: z.number().int(),
  contentTokenCount: z.number().int().nullable().optional(),
}));

/** Text deltas keyed by item: agent message, plan, command output. */
export const ItemDeltaNotification = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  delta: z.string(),
}));

/** `item/reasoning/summaryPartAdded`. */
export const ReasoningSummaryPartAddedNotification = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  summaryIndex: z.number().int(),
}));

/** `item/reasoning/summaryTextDelta`. */
export const ReasoningSummaryTextDeltaNotification = lazySchema(() => ItemDeltaNotification.extend({ summaryIndex: z.number().int() }));

/** `item/reasoning/textDelta`. */
export const ReasoningTextDeltaNotification = lazySchema(() => ItemDeltaNotification.extend({ contentIndex: z.number().int() }));

/** `turn/diff/updated`: the aggregated diff of the turn so far. */
export const TurnDiffUpdatedNotification = lazySchema(() => z.object({ threadId: z.string(), turnId: z.string(), diff: z.string() }));

/** `turn/plan/updated`: the model called `update_plan`. */
export const TurnPlanUpdatedNotification = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  explanation: z.string().nullable().optional(),
  plan: z.array(TurnPlanStep),
}));

/** `error`: a mid-turn error; `willRetry: false` precedes a failed `turn/completed`. */
export const ErrorNotification = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  error: TurnError,
  willRetry: z.boolean(),
}));

/** `serverRequest/resolved`: a server→client request was answered or withdrawn. */
export const ServerRequestResolvedNotification = lazySchema(() => z.object({ threadId: z.string(), requestId: RequestId }));

/** `configWarning`: a problem with the configuration that did not stop the server. */
export const ConfigWarningNotification = lazySchema(() => z.object({
  summary: z.string(),
  details: z.string().nullable().optional(),
  path: z.string().nullable().optional(),
  range: z
    .object({
      start: z.object({ line: z.number().int(), column: z.number().int() }),
      end: z.object({ line: z.number().int(), column: z.number().int() }),
    })
    .nullable()
    .optional(),
}));
export type ConfigWarningNotification = z.infer<typeof ConfigWarningNotification>;

/** `warning`: something the user should know that is not an error. */
export const WarningNotification = lazySchema(() => z.object({ threadId: z.string().nullable().optional(), message: z.string() }));

/** `deprecationNotice`: the client used something deprecated (full-history hydration of a paginated thread). */
export const DeprecationNoticeNotification = lazySchema(() => z.object({ summary: z.string(), details: z.string().nullable().optional() }));

/** `thread/compacted` (deprecated in Codex in favour of `contextCompaction` items, still sent). */
export const ContextCompactedNotification = lazySchema(() => z.object({ threadId: z.string(), turnId: z.string() }));

/** `thread/readState/changed`: unread tracking moved (a turn ended, or the client marked the thread read). */
export const ThreadReadStateChangedNotification = lazySchema(() => z.object({ threadId: z.string(), readState: ThreadReadState }));

/** The settings a thread's turns run with, as `thread/settings/updated` carries them. */
export const ThreadSettingsView = lazySchema(() => z.object({
  model: z.string(),
  modelProvider: z.string(),
  cwd: z.string(),
  approvalPolicy: AskForApproval,
  approvalsReviewer: ApprovalsReviewer,
  sandboxPolicy: SandboxPolicy,
  effort: z.string().nullable().optional(),
  summary: ReasoningSummary.nullable().optional(),
  serviceTier: z.string().nullable().optional(),
  collaborationMode: CollaborationMode,
  activePermissionProfile: z.object({ id: z.string(), extends: z.string().nullable().optional() }).nullable().optional(),
  disabledPluginIds: z.array(z.string()).optional(),
}));
export type ThreadSettingsView = z.infer<typeof ThreadSettingsView>;

/** `thread/settings/updated`: a turn/start or resume changed the thread's settings. */
export const ThreadSettingsUpdatedNotification = lazySchema(() => z.object({ threadId: z.string(), threadSettings: ThreadSettingsView }));
