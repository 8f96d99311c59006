import { ModelError, type TurnSettings } from "../agent/index.js";
import type { ThreadSettingsView } from "../protocol/notifications.js";
import type { CollaborationMode, ThreadStatus, Thread } from "../protocol/thread.js";
import type { Turn, TurnError } from "../protocol/turn.js";
import type { ThreadResumeParams, ThreadResumeResponse, ThreadSessionResponse } from "../protocol/threadMethods.js";
import { describeStorageFault } from "../runtime/systemErrors.js";
import { historyHeads, turnsPage } from "./historyPaging.js";
import type { ThreadHistory } from "./threadHistory.js";
import type { ThreadSummary } from "./threadStore.js";

/** A turn as `turn/start` returns it: in progress, nothing loaded yet. */
export function inProgressTurn(id: string): Turn {
  return { id, rootTurnId: id, items: [], itemsView: "notLoaded", status: "inProgress", error: null, startedAt: null, completedAt: null, durationMs: null };
}

/** What a client is told about a failed turn. */
export function turnError(failure: unknown): TurnError {
  if (failure instanceof ModelError) return { message: failure.message, codexErrorInfo: failure.info, additionalDetails: null };
  const storage = describeStorageFault(failure);
  if (storage) return { message: `the thread could not be saved: ${storage}`, codexErrorInfo: "other", additionalDetails: null };
  const message = failure instanceof Error ? failure.message : String(failure);
  return { message: `internal error: ${message}`, codexErrorInfo: "other", additionalDetails: null };
}

/** The wire Thread of an index entry. */
export function storedThread(
  summary: ThreadSummary,
  turns: Turn[],
  status: ThreadStatus = { type: "notLoaded" },
  placement: { readonly section: NonNullable<Thread["section"]>; readonly enteredAt: number } | null = null,
): Thread {
  // As Codex: a thread no process has loaded has no live environment and takes no direct input.
  const live = status.type !== "notLoaded";
  return {
    id: summary.id,
    environments: live ? [{ environmentId: "local", cwd: summary.cwd, runtimeWorkspaceRoots: [summary.cwd] }] : null,
    extra: null,
    sessionId: summary.sessionId,
    forkedFromId: summary.forkedFromId ?? null,
    attachedToThreadId: null,
    parentThreadId: null,
    preview: summary.preview,
    ephemeral: false,
    section: placement?.section ?? null,
    sectionEnteredAt: placement?.enteredAt ?? null,
    projectId: null,
    historyMode: "paginated",
    modelProvider: summary.modelProvider,
    model: summary.model,
    reasoningEffort: summary.reasoningEffort ?? null,
    createdAt: Math.floor(summary.createdAtMs / 1000),
    updatedAt: Math.floor(summary.updatedAtMs / 1000),
    recencyAt: Math.floor(summary.updatedAtMs / 1000),
    status,
    path: summary.path,
    cwd: summary.cwd,
    cliVersion: summary.cliVersion,
    originator: summary.originator ?? null,
    source: summary.source as Thread["source"],
    canAcceptDirectInput: live ? true : null,
    threadSource: summary.threadSource ?? null,
    agentNickname: null,
    agentRole: null,
    gitInfo: (summary.gitInfo as Thread["gitInfo"]) ?? null,
    name: summary.name,
    daybreakEnabled: null,
    turns,
  };
}

/** The collaboration mode a thread's turns run in: always the default mode, with the thread's model and effort. */
function collaborationModeView(settings: TurnSettings): CollaborationMode {
  return { mode: "default", settings: { model: settings.model, reasoning_effort: settings.reasoningEffort ?? null, developer_instructions: settings.developerInstructions ?? null } };
}

/**
 * `thread/resume`'s response: the session response with, in Codex's key order, the collaboration
 * mode, the first page of turns `initialTurnsPage` asks for (null when not asked) and the cursors
 * to page the history back from its newest end.
 */
export function resumeResponse(
  session: ThreadSessionResponse,
  history: ThreadHistory,
  initialTurnsPage: ThreadResumeParams["initialTurnsPage"],
): ThreadResumeResponse {
  const { multiAgentMode, ...rest } = session;
  const threadId = history.identity.id;
  return {
    ...rest,
    collaborationMode: collaborationModeView(history.settings),
    multiAgentMode,
    initialTurnsPage: initialTurnsPage ? turnsPage(history.turns, { ...initialTurnsPage, threadId }) : null,
    ...historyHeads(threadId, history.turns),
  };
}

/** A thread's settings as `thread/settings/updated` carries them (Codex's ThreadSettings). */
export function threadSettingsView(settings: TurnSettings): ThreadSettingsView {
  return {
    model: settings.model,
    modelProvider: settings.modelProvider,
    cwd: settings.cwd,
    approvalPolicy: settings.approvalPolicy,
    approvalsReviewer: settings.approvalsReviewer,
    sandboxPolicy: settings.sandbox,
    effort: settings.reasoningEffort ?? null,
    summary: (settings.reasoningSummary as ThreadSettingsView["summary"]) ?? null,
    serviceTier: settings.serviceTier ?? null,
    collaborationMode: collaborationModeView(settings),
    activePermissionProfile: null,
    disabledPluginIds: [],
  };
}
