import * as z from "zod";
import { lazySchema } from "./lazySchema.js";
import { Turn } from "./turn.js";

/** Why an active thread is waiting. */
export const ThreadActiveFlag = lazySchema(() => z.enum(["waitingOnApproval", "waitingOnUserInput"]));
export type ThreadActiveFlag = z.infer<typeof ThreadActiveFlag>;

/** Whether a thread is loaded, idle, running a turn or stuck after a failure. */
export const ThreadStatus = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("notLoaded") }),
  z.object({ type: z.literal("idle") }),
  z.object({ type: z.literal("systemError") }),
  z.object({ type: z.literal("active"), activeFlags: z.array(ThreadActiveFlag) }),
]));
export type ThreadStatus = z.infer<typeof ThreadStatus>;

/** What started a thread; app-server threads are recorded as `vscode`, as Codex does. */
export const SessionSource = lazySchema(() => z.union([
  z.enum(["cli", "vscode", "exec", "appServer", "unknown"]),
  z.object({ custom: z.string() }),
]));

/** Git state of the thread's cwd when it started. */
export const GitInfo = lazySchema(() => z.object({
  sha: z.string().nullable().optional(),
  branch: z.string().nullable().optional(),
  originUrl: z.string().nullable().optional(),
}));

export type GitInfo = z.infer<typeof GitInfo>;

/** A conversation: metadata plus, where asked for, its turns. Times are Unix seconds. */
/** A machine a thread runs on, with its cwd and the roots its sandbox grants. */
export const ThreadEnvironment = lazySchema(() => z.object({ environmentId: z.string(), cwd: z.string(), runtimeWorkspaceRoots: z.array(z.string()) }));

/** A user-visible section a thread is filed under. */
export const ThreadSection = lazySchema(() => z.object({
  id: z.string(),
  name: z.string(),
  appearance: z.object({ color: z.string().nullable().optional(), icon: z.string().nullable().optional() }).nullable().optional(),
}));

/** The history contract of a thread: `paginated` ones page their items and turns. */
export const ThreadHistoryMode = lazySchema(() => z.enum(["legacy", "paginated"]));

export const Thread = lazySchema(() => z.object({
  id: z.string(),
  /** Where the thread runs (Codex sends it to every client): here always the local machine at the thread's cwd. */
  environments: z.array(ThreadEnvironment).nullable().optional(),
  extra: z.unknown().nullable().optional(),
  sessionId: z.string(),
  forkedFromId: z.string().nullable().optional(),
  attachedToThreadId: z.string().nullable().optional(),
  parentThreadId: z.string().nullable().optional(),
  preview: z.string(),
  ephemeral: z.boolean(),
  section: ThreadSection.nullable().optional(),
  sectionEnteredAt: z.number().int().nullable().optional(),
  projectId: z.string().nullable(),
  historyMode: ThreadHistoryMode.optional(),
  modelProvider: z.string(),
  model: z.string().nullable().optional(),
  reasoningEffort: z.string().nullable().optional(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  recencyAt: z.number().int().nullable().optional(),
  status: ThreadStatus,
  path: z.string().nullable().optional(),
  cwd: z.string(),
  cliVersion: z.string(),
  originator: z.string().nullable().optional(),
  source: SessionSource,
  canAcceptDirectInput: z.boolean().nullable().optional(),
  threadSource: z.string().nullable().optional(),
  agentNickname: z.string().nullable().optional(),
  agentRole: z.string().nullable().optional(),
  gitInfo: GitInfo.nullable().optional(),
  name: z.string().nullable().optional(),
  daybreakEnabled: z.boolean().nullable().optional(),
  turns: z.array(Turn),
}));
export type Thread = z.infer<typeof Thread>;

/** A thread's collaboration mode and the settings it runs with (`settings` keys are snake_case on the wire). */
export const CollaborationMode = lazySchema(() => z.object({
  mode: z.enum(["plan", "default"]),
  settings: z.object({ model: z.string(), reasoning_effort: z.string().nullable().optional(), developer_instructions: z.string().nullable().optional() }),
}));
export type CollaborationMode = z.infer<typeof CollaborationMode>;

/** The first thing in a thread the user has not seen. */
export const ThreadUnreadPosition = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("threadStart") }),
  z.object({ type: z.literal("turn"), turnId: z.string() }),
]));

/** Unread tracking for a thread; `revision` changes on every update, for optimistic concurrency. */
export const ThreadReadState = lazySchema(() => z.object({
  firstUnread: ThreadUnreadPosition.nullable().optional(),
  revision: z.string(),
}));
export type ThreadReadState = z.infer<typeof ThreadReadState>;
