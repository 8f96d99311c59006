import * as z from "zod";
import { lazySchema } from "./lazySchema.js";
import { ThreadItem } from "./items.js";
import { ApprovalsReviewer, AskForApproval, AskForApprovalInput, PermissionProfileId, profileOrSandbox, SandboxMode, SandboxPolicy } from "./policy.js";
import { DynamicToolSpec } from "./clientTools.js";
import { CollaborationMode, Thread, ThreadReadState, ThreadSection } from "./thread.js";
import { Turn, TurnItemsView } from "./turn.js";

/** Settings a client may give when it starts, resumes or forks a thread. */
const ThreadSettingsOverrides = {
  model: z.string().nullable().optional(),
  modelProvider: z.string().nullable().optional(),
  serviceTier: z.string().nullable().optional(),
  cwd: z.string().nullable().optional(),
  approvalPolicy: AskForApprovalInput.nullable().optional(),
  approvalsReviewer: ApprovalsReviewer.nullable().optional(),
  sandbox: SandboxMode.nullable().optional(),
  /** Experimental: a permission profile instead of `sandbox`. */
  permissions: PermissionProfileId.nullable().optional(),
  config: z.record(z.string(), z.unknown()).nullable().optional(),
  baseInstructions: z.string().nullable().optional(),
  developerInstructions: z.string().nullable().optional(),
};

/** Params of `thread/start`. */
export const ThreadStartParams = lazySchema(() => z.object({
  ...ThreadSettingsOverrides,
  personality: z.enum(["none", "friendly", "pragmatic"]).nullable().optional(),
  ephemeral: z.boolean().nullable().optional(),
  sessionStartSource: z.enum(["startup", "clear"]).nullable().optional(),
  serviceName: z.string().nullable().optional(),
  threadSource: z.string().nullable().optional(),
  /** Experimental: tools the client runs itself, offered to the model for this thread's turns. */
  dynamicTools: z.array(DynamicToolSpec).nullable().optional(),
}).superRefine(profileOrSandbox("sandbox")));
export type ThreadStartParams = z.infer<typeof ThreadStartParams>;

/** The thread plus the settings its turns will run with (start, resume and fork results). */
export const ThreadSessionResponse = lazySchema(() => z.object({
  thread: Thread,
  model: z.string(),
  modelProvider: z.string(),
  serviceTier: z.string().nullable().optional(),
  disabledPluginIds: z.array(z.string()).optional(),
  cwd: z.string(),
  runtimeWorkspaceRoots: z.array(z.string()).optional(),
  /** The instruction files (AGENTS.md) loaded for the thread. */
  instructionSources: z.array(z.string()).optional(),
  approvalPolicy: AskForApproval,
  approvalsReviewer: ApprovalsReviewer,
  sandbox: SandboxPolicy,
  activePermissionProfile: z.string().nullable().optional(),
  reasoningEffort: z.string().nullable().optional(),
  multiAgentMode: z.string().optional(),
}));
export type ThreadSessionResponse = z.infer<typeof ThreadSessionResponse>;

/** The first page of turns `thread/resume` returns with the thread (experimental); paged as `thread/turns/list` from the newest end. */
export const ThreadResumeInitialTurnsPageParams = lazySchema(() => z.object({
  limit: z.number().int().nonnegative().nullable().optional(),
  sortDirection: z.enum(["asc", "desc"]).nullable().optional(),
  itemsView: TurnItemsView.nullable().optional(),
}));

/** Params of `thread/resume`. */
export const ThreadResumeParams = lazySchema(() => z.object({
  threadId: z.string(),
  ...ThreadSettingsOverrides,
  excludeTurns: z.boolean().optional(),
  /** Experimental: a first page of turns, returned with the thread. */
  initialTurnsPage: ThreadResumeInitialTurnsPageParams.nullable().optional(),
}).superRefine(profileOrSandbox("sandbox")));
export type ThreadResumeParams = z.infer<typeof ThreadResumeParams>;

/** A page of turns, as `thread/turns/list` returns it. */
export const TurnsPage = lazySchema(() => z.object({
  data: z.array(Turn),
  nextCursor: z.string().nullable(),
  backwardsCursor: z.string().nullable(),
}));

/** Result of `thread/resume`: the session response, the collaboration mode, and where paging the history starts. */
export const ThreadResumeResponse = lazySchema(() => ThreadSessionResponse.extend({
  collaborationMode: CollaborationMode.nullable().optional(),
  /** The page `initialTurnsPage` asked for; null when not asked. */
  initialTurnsPage: TurnsPage.nullable().optional(),
  /** The newest turn, for `thread/turns/list` with `sortDirection: "desc"` (that page includes it); null when there is none. */
  turnsBackwardsCursor: z.string().nullable().optional(),
  /** The newest item, for `thread/items/list` with `sortDirection: "desc"` (that page includes it); null when there is none. */
  itemsBackwardsCursor: z.string().nullable().optional(),
}));
export type ThreadResumeResponse = z.infer<typeof ThreadResumeResponse>;

/** Params of `thread/fork`. */
export const ThreadForkParams = lazySchema(() => z.object({
  threadId: z.string(),
  ...ThreadSettingsOverrides,
  ephemeral: z.boolean().optional(),
  excludeTurns: z.boolean().optional(),
  lastTurnId: z.string().nullable().optional(),
  threadSource: z.string().nullable().optional(),
}).superRefine(profileOrSandbox("sandbox")));
export type ThreadForkParams = z.infer<typeof ThreadForkParams>;

/** Source kinds `thread/list` can filter on. */
export const ThreadSourceKind = lazySchema(() => z.enum([
  "cli",
  "vscode",
  "exec",
  "appServer",
  "subAgent",
  "subAgentReview",
  "subAgentCompact",
  "subAgentThreadSpawn",
  "subAgentOther",
  "unknown",
]));

/** Params of `thread/list`. */
export const ThreadListParams = lazySchema(() => z.object({
  cursor: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
  sortKey: z.enum(["created_at", "updated_at", "recency_at", "section_position"]).nullable().optional(),
  sortDirection: z.enum(["asc", "desc"]).nullable().optional(),
  modelProviders: z.array(z.string()).nullable().optional(),
  sourceKinds: z.array(ThreadSourceKind).nullable().optional(),
  archived: z.boolean().nullable().optional(),
  cwd: z.union([z.string(), z.array(z.string())]).nullable().optional(),
  searchTerm: z.string().nullable().optional(),
  excludedThreadIds: z.array(z.string()).nullable().optional(),
  useStateDbOnly: z.boolean().optional(),
  currentAccountOnly: z.boolean().optional(),
  originators: z.array(z.string()).nullable().optional(),
  sectionId: z.string().nullable().optional(),
}));
export type ThreadListParams = z.infer<typeof ThreadListParams>;

/** A page of threads. */
export const ThreadListResponse = lazySchema(() => z.object({
  data: z.array(Thread),
  /** Unread tracking of the listed threads, by id (Codex sends it outside its published schema). */
  readStates: z.record(z.string(), ThreadReadState).optional(),
  nextCursor: z.string().nullable().optional(),
  backwardsCursor: z.string().nullable().optional(),
}));

/** Params of requests that only name a thread. */
export const ThreadIdParams = lazySchema(() => z.object({ threadId: z.string() }));

/** Params of `thread/read`. */
export const ThreadReadParams = lazySchema(() => z.object({ threadId: z.string(), includeTurns: z.boolean().optional() }));

/** Result carrying one thread. */
export const ThreadResponse = lazySchema(() => z.object({ thread: Thread }));

/** Result of `thread/read`: the thread and its unread tracking (null for a thread that is not stored; Codex sends it outside its published schema). */
export const ThreadReadResponse = lazySchema(() => ThreadResponse.extend({ readState: ThreadReadState.nullable().optional() }));

/** Params of `thread/turns/list`. */
export const ThreadTurnsListParams = lazySchema(() => z.object({
  threadId: z.string(),
  cursor: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
  sortDirection: z.enum(["asc", "desc"]).nullable().optional(),
  itemsView: TurnItemsView.nullable().optional(),
}));
export type ThreadTurnsListParams = z.infer<typeof ThreadTurnsListParams>;

/** A page of turns. */
export const ThreadTurnsListResponse = lazySchema(() => z.object({
  data: z.array(Turn),
  nextCursor: z.string().nullable().optional(),
  backwardsCursor: z.string().nullable().optional(),
}));

/** Params of `thread/name/set`. */
export const ThreadSetNameParams = lazySchema(() => z.object({ threadId: z.string(), name: z.string() }));

/** Params of `thread/loaded/list`. */
export const ThreadLoadedListParams = lazySchema(() => z.object({
  cursor: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
}));

/** Result of `thread/loaded/list`. */
export const ThreadLoadedListResponse = lazySchema(() => z.object({
  data: z.array(z.string()),
  nextCursor: z.string().nullable().optional(),
}));

/** Result of `thread/unsubscribe`. */
export const ThreadUnsubscribeResponse = lazySchema(() => z.object({ status: z.enum(["unsubscribed", "notSubscribed", "notLoaded"]) }));

/** Params of `thread/metadata/update`. */
export const ThreadMetadataUpdateParams = lazySchema(() => z.object({
  threadId: z.string(),
  gitInfo: z
    .object({
      sha: z.string().nullable().optional(),
      branch: z.string().nullable().optional(),
      originUrl: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
}));

/** An empty result. */
export const EmptyResponse = lazySchema(() => z.object({}));


/** Params of `thread/readState/update` (experimental): the user has seen the thread. */
export const ThreadReadStateUpdateParams = lazySchema(() => z.object({
  threadId: z.string(),
  operation: z.object({ type: z.literal("read") }),
  expectedRevision: z.string().nullable().optional(),
}));
export type ThreadReadStateUpdateParams = z.infer<typeof ThreadReadStateUpdateParams>;

/** Result of `thread/readState/update`. */
export const ThreadReadStateUpdateResponse = lazySchema(() => z.object({ readState: ThreadReadState }));

/** Params of `thread/shellCommand`: a shell string the user typed, run unsandboxed in the thread's cwd (default timeout one hour). */
export const ThreadShellCommandParams = lazySchema(() => z.object({
  threadId: z.string(),
  command: z.string(),
  timeoutMs: z.number().int().nonnegative().nullable().optional(),
}));
export type ThreadShellCommandParams = z.infer<typeof ThreadShellCommandParams>;

/** An exclusive item position within the turn of a `thread/items/list` request. */
export const ThreadItemsListAnchor = lazySchema(() => z.object({ type: z.literal("item"), itemId: z.string() }));

/** Params of `thread/items/list`: a page of a thread's items (or one turn's), for clients that replay history. */
export const ThreadItemsListParams = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string().nullable().optional(),
  cursor: z.union([z.string(), ThreadItemsListAnchor]).nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
  sortDirection: z.enum(["asc", "desc"]).nullable().optional(),
  deferOutput: z.object({}).loose().nullable().optional(),
}));
export type ThreadItemsListParams = z.infer<typeof ThreadItemsListParams>;

/** One item of a thread, with its turn and times. */
export const ThreadItemEntry = lazySchema(() => z.object({
  turnId: z.string(),
  item: ThreadItem,
  startedAtMs: z.number().int().nullable().optional(),
  completedAtMs: z.number().int().nullable().optional(),
}));
export type ThreadItemEntry = z.infer<typeof ThreadItemEntry>;

/** Result of `thread/items/list`. */
export const ThreadItemsListResponse = lazySchema(() => z.object({
  data: z.array(ThreadItemEntry),
  nextCursor: z.string().nullable().optional(),
  backwardsCursor: z.string().nullable().optional(),
}));

/** `thread/deleted`: the thread and its file are gone for good. */
export const ThreadDeletedNotification = lazySchema(() => z.object({ threadId: z.string() }));

/** Params of `permissionProfile/list`. */
export const PermissionProfileListParams = lazySchema(() => z.object({
  cursor: z.string().nullable().optional(),
  cwd: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
}));

/** A permission profile a client can select. */
export const PermissionProfileSummary = lazySchema(() => z.object({ id: z.string(), description: z.string().nullable().optional(), allowed: z.boolean() }));

/** Result of `permissionProfile/list`. */
export const PermissionProfileListResponse = lazySchema(() => z.object({ data: z.array(PermissionProfileSummary), nextCursor: z.string().nullable().optional() }));

/** Params of `thread/revert`: the history from `beforeTurnId` on is dropped (files are not touched). */
export const ThreadRevertParams = lazySchema(() => z.object({ threadId: z.string(), beforeTurnId: z.string() }));

/** Result of `thread/revert`: the thread (no turns) and the newest turn and item left, to page back from as after `thread/resume`. */
export const ThreadRevertResponse = lazySchema(() => z.object({
  thread: Thread,
  turnsBackwardsCursor: z.string().nullable().optional(),
  itemsBackwardsCursor: z.string().nullable().optional(),
}));

/** Params of `thread/inject_items`: raw Responses API items for the model-visible history. */
export const ThreadInjectItemsParams = lazySchema(() => z.object({ threadId: z.string(), items: z.array(z.unknown()) }));

/** How a section looks in clients that draw it. */
const ThreadSectionAppearance = lazySchema(() => z.object({ color: z.string().nullable().optional(), icon: z.string().nullable().optional() }));

/** Params of `threadSection/list`. */
export const ThreadSectionListParams = lazySchema(() => z.object({ cursor: z.string().nullable().optional(), limit: z.number().int().nonnegative().nullable().optional() }));

/** Result of `threadSection/list`. */
export const ThreadSectionListResponse = lazySchema(() => z.object({ data: z.array(ThreadSection), nextCursor: z.string().nullable().optional() }));

/** Params of `threadSection/create`. */
export const ThreadSectionCreateParams = lazySchema(() => z.object({ name: z.string().min(1), appearance: ThreadSectionAppearance.nullable().optional() }));

/** Params of `threadSection/update`: `appearance` omitted keeps it, null clears it. */
export const ThreadSectionUpdateParams = lazySchema(() => z.object({ sectionId: z.string(), name: z.string().min(1), appearance: ThreadSectionAppearance.nullable().optional() }));

/** Result of `threadSection/create` and `threadSection/update`. */
export const ThreadSectionResponse = lazySchema(() => z.object({ section: ThreadSection }));

/** Params of `threadSection/delete`. */
export const ThreadSectionDeleteParams = lazySchema(() => z.object({ sectionId: z.string() }));

/** Params of `thread/section/move`: into (before `beforeThreadId`, else last), within, or out of (`sectionId` null) a section. */
export const ThreadSectionMoveParams = lazySchema(() => z.object({ threadId: z.string(), sectionId: z.string().nullable(), beforeThreadId: z.string().nullable().optional() }));

/** `thread/section/changed`: a thread moved into, within, or out of (null) a section. */
export const ThreadSectionChangedNotification = lazySchema(() => z.object({ threadId: z.string(), sectionId: z.string().nullable() }));
