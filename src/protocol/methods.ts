import * as z from "zod";
import {
  CommandExecutionRequestApprovalParams,
  CommandExecutionRequestApprovalResponse,
  FileChangeRequestApprovalParams,
  FileChangeRequestApprovalResponse,
} from "./approvals.js";
import {
  CommandExecOutputDeltaNotification,
  CommandExecParams,
  CommandExecResponse,
  CommandExecTerminateParams,
  CommandExecResizeParams,
  CommandExecWriteParams,
} from "./commandExecMethods.js";
import {
  DynamicToolCallParams,
  DynamicToolCallResponse,
  ToolRequestUserInputParams,
  ToolRequestUserInputResponse,
} from "./clientTools.js";
import { ReviewStartParams, ReviewStartResponse } from "./reviewMethods.js";
import { FeedbackSaveParams, FeedbackSaveResponse } from "./feedbackMethods.js";
import {
  AccountLoginCompletedNotification,
  AccountUpdatedNotification,
  CancelLoginAccountParams,
  CancelLoginAccountResponse,
  GetAccountRateLimitsResponse,
  LoginAccountParams,
  LoginAccountResponse,
} from "./accountMethods.js";
import {
  GuardianWarningNotification,
  ItemGuardianApprovalReviewCompletedNotification,
  ThreadApproveGuardianDeniedActionParams,
  ItemGuardianApprovalReviewStartedNotification,
} from "./autoReview.js";
import {
  ThreadBackgroundTerminalsCleanParams,
  ThreadBackgroundTerminalsListParams,
  ThreadBackgroundTerminalsListResponse,
  ThreadBackgroundTerminalsTerminateParams,
  ThreadBackgroundTerminalsTerminateResponse,
} from "./backgroundTerminalMethods.js";
import {
  ThreadGoalClearedNotification,
  ThreadGoalClearParams,
  ThreadGoalClearResponse,
  ThreadGoalGetResponse,
  ThreadGoalSetParams,
  ThreadGoalSetResponse,
  ThreadGoalUpdatedNotification,
} from "./goalMethods.js";
import {
  ConfigBatchWriteParams,
  ConfigValueWriteParams,
  ConfigWriteResponse,
  ConfigReadParams,
  ConfigReadResponse,
  ConfigRequirementsReadResponse,
  ExperimentalFeatureEnablementSetParams,
  ExperimentalFeatureEnablementSetResponse,
  ExperimentalFeatureListParams,
  ExperimentalFeatureListResponse,
} from "./configMethods.js";
import {
  ModelListParams,
  ModelListResponse,
  ModelProviderCapabilitiesReadResponse,
  ModelProviderConfigWriteParams,
  ModelProviderConfigWriteResponse,
  ModelProviderListResponse,
} from "./modelMethods.js";
import {
  FsCopyParams,
  FsChangedNotification,
  FsUnwatchParams,
  FsWatchParams,
  FsWatchResponse,
  FsCreateDirectoryParams,
  FsGetMetadataParams,
  FsGetMetadataResponse,
  FsReadDirectoryParams,
  FsReadDirectoryResponse,
  FsReadFileParams,
  FsReadFileResponse,
  FsRemoveParams,
  FsWriteFileParams,
  FuzzyFileSearchParams,
  FuzzyFileSearchResponse,
} from "./fsMethods.js";
import { InitializeParams, InitializeResponse } from "./initialize.js";
import {
  ListMcpServerStatusParams,
  ListMcpServerStatusResponse,
  McpResourceReadParams,
  McpResourceReadResponse,
  McpServerStatusUpdatedNotification,
  McpServerToolCallParams,
  McpServerToolCallResponse,
  McpServerOauthLoginCompletedNotification,
  McpServerOauthLoginParams,
  McpServerOauthLoginResponse,
} from "./mcpMethods.js";
import {
  CollaborationModeListResponse,
  GetAccountParams,
  GetAccountResponse,
  GovCloudRequirementsResponse,
  HooksListParams,
  HooksListResponse,
  PluginInstalledParams,
  PluginInstalledResponse,
  SkillsListParams,
  SkillsConfigWriteParams,
  SkillsConfigWriteResponse,
  SkillsExtraRootsSetParams,
  SkillsListResponse,
} from "./startupQuestionMethods.js";
import {
  ExternalAgentConfigDetectParams,
  ExternalAgentConfigDetectResponse,
  ExternalAgentConfigImportHistoriesReadResponse,
  ExternalAgentConfigImportHistoryRecordParams,
  ExternalAgentConfigImportParams,
  ExternalAgentConfigImportResponse,
  ExternalAgentConfigImportResultsNotification,
} from "./externalAgentMethods.js";
import {
  ThreadAttachmentAddParams,
  ThreadAttachmentAddResponse,
  ThreadAttachmentListParams,
  ThreadAttachmentListResponse,
  ThreadAttachmentOwnerListParams,
  ThreadAttachmentOwnerListResponse,
  ThreadAttachmentRemoveParams,
  ThreadAttachmentUpdatedNotification,
} from "./attachmentMethods.js";
import {
  EmptyResponse,
  ThreadForkParams,
  ThreadIdParams,
  ThreadShellCommandParams,
  ThreadItemsListParams,
  ThreadRevertParams,
  ThreadSectionChangedNotification,
  ThreadSectionCreateParams,
  ThreadSectionDeleteParams,
  ThreadSectionListParams,
  ThreadSectionListResponse,
  ThreadSectionMoveParams,
  ThreadSectionResponse,
  ThreadSectionUpdateParams,
  ThreadRevertResponse,
  ThreadInjectItemsParams,
  ThreadItemsListResponse,
  ThreadDeletedNotification,
  PermissionProfileListParams,
  PermissionProfileListResponse,
  ThreadListParams,
  ThreadListResponse,
  ThreadLoadedListParams,
  ThreadLoadedListResponse,
  ThreadMetadataUpdateParams,
  ThreadReadParams,
  ThreadReadResponse,
  ThreadReadStateUpdateParams,
  ThreadReadStateUpdateResponse,
  ThreadResponse,
  ThreadResumeParams,
  ThreadResumeResponse,
  ThreadSessionResponse,
  ThreadSetNameParams,
  ThreadStartParams,
  ThreadTurnsListParams,
  ThreadTurnsListResponse,
  ThreadUnsubscribeResponse,
} from "./threadMethods.js";
import { TurnInterruptParams, TurnStartParams, TurnStartResponse, TurnSteerParams, TurnSteerResponse } from "./turnMethods.js";
import {
  ConfigWarningNotification,
  DeprecationNoticeNotification,
  ErrorNotification,
  ItemCompletedNotification,
  ItemDeltaNotification,
  ItemStartedNotification,
  ReasoningSummaryPartAddedNotification,
  ReasoningSummaryTextDeltaNotification,
  ReasoningTextDeltaNotification,
  ServerRequestResolvedNotification,
  ThreadIdNotification,
  ThreadNameUpdatedNotification,
  ThreadSettingsUpdatedNotification,
  ThreadReadStateChangedNotification,
  ContextCompactedNotification,
  ThreadStartedNotification,
  ThreadStatusChangedNotification,
  ThreadTokenUsageUpdatedNotification,
  TurnDiffUpdatedNotification,
  TurnNotification,
  TurnPlanUpdatedNotification,
  WarningNotification,
} from "./notifications.js";

/**
 * How requests of a method are ordered: `thread` ones name a thread (`params.threadId`, which must
 * be a UUID) and run one at a time per thread, in the order they arrived, as in Codex;
 * `threadHint` ones may name a thread for context and are ordered with it when they do;
 * `concurrent` ones run at once.
 */
export type RequestScope = "thread" | "threadHint" | "concurrent";

/**
 * A request method: params and result schemas, the type name used for generated JSON Schema files,
 * its ordering, and whether only clients that set `capabilities.experimentalApi` may call it.
 */
export interface RequestSpec<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly typeName: string;
  readonly params: P;
  readonly result: R;
  readonly scope: RequestScope;
  readonly experimental?: boolean;
}

/** A notification method: its params schema, type name, and whether only `experimentalApi` clients get it. */
export interface NotificationSpec<P extends z.ZodType = z.ZodType> {
  readonly typeName: string;
  readonly params: P;
  readonly experimental: boolean;
}

function request<P extends z.ZodType, R extends z.ZodType>(typeName: string, params: P, result: R, scope: RequestScope = "concurrent"): RequestSpec<P, R> {
  return { typeName, params, result, scope };
}

/** A request about one thread, ordered per thread (see {@link RequestScope}). */
function threadRequest<P extends z.ZodType, R extends z.ZodType>(typeName: string, params: P, result: R): RequestSpec<P, R> {
  return request(typeName, params, result, "thread");
}

/** An experimental request about one thread: refused unless the client set `experimentalApi`, as Codex does. */
function experimentalThreadRequest<P extends z.ZodType, R extends z.ZodType>(typeName: string, params: P, result: R): RequestSpec<P, R> {
  return { ...threadRequest(typeName, params, result), experimental: true };
}

function notification<P extends z.ZodType>(typeName: string, params: P, experimental = false): NotificationSpec<P> {
  return { typeName, params, experimental };
}

/** Client → server requests this server implements; `threadRequest` ones are ordered per thread. */
export const clientRequests = {
  initialize: request("Initialize", InitializeParams, InitializeResponse),
  "thread/start": request("ThreadStart", ThreadStartParams, ThreadSessionResponse),
  "thread/resume": threadRequest("ThreadResume", ThreadResumeParams, ThreadResumeResponse),
  "thread/fork": threadRequest("ThreadFork", ThreadForkParams, ThreadSessionResponse),
  "thread/list": request("ThreadList", ThreadListParams, ThreadListResponse),
  "thread/read": threadRequest("ThreadRead", ThreadReadParams, ThreadReadResponse),
  "thread/turns/list": threadRequest("ThreadTurnsList", ThreadTurnsListParams, ThreadTurnsListResponse),
  "thread/archive": threadRequest("ThreadArchive", ThreadIdParams, EmptyResponse),
  "thread/unarchive": threadRequest("ThreadUnarchive", ThreadIdParams, ThreadResponse),
  "thread/name/set": threadRequest("ThreadSetName", ThreadSetNameParams, EmptyResponse),
  "thread/metadata/update": threadRequest("ThreadMetadataUpdate", ThreadMetadataUpdateParams, ThreadResponse),
  "thread/loaded/list": request("ThreadLoadedList", ThreadLoadedListParams, ThreadLoadedListResponse),
  "thread/unsubscribe": threadRequest("ThreadUnsubscribe", ThreadIdParams, ThreadUnsubscribeResponse),
  "review/start": threadRequest("ReviewStart", ReviewStartParams, ReviewStartResponse),
  "thread/compact/start": threadRequest("ThreadCompactStart", ThreadIdParams, EmptyResponse),
  "thread/shellCommand": threadRequest("ThreadShellCommand", ThreadShellCommandParams, EmptyResponse),
  "thread/items/list": threadRequest("ThreadItemsList", ThreadItemsListParams, ThreadItemsListResponse),
  "thread/delete": threadRequest("ThreadDelete", ThreadIdParams, EmptyResponse),
  "thread/revert": threadRequest("ThreadRevert", ThreadRevertParams, ThreadRevertResponse),
  "thread/section/move": threadRequest("ThreadSectionMove", ThreadSectionMoveParams, EmptyResponse),
  "threadSection/list": request("ThreadSectionList", ThreadSectionListParams, ThreadSectionListResponse),
  "threadSection/create": request("ThreadSectionCreate", ThreadSectionCreateParams, ThreadSectionResponse),
  "threadSection/update": request("ThreadSectionUpdate", ThreadSectionUpdateParams, ThreadSectionResponse),
  "threadSection/delete": request("ThreadSectionDelete", ThreadSectionDeleteParams, EmptyResponse),
  "thread/inject_items": threadRequest("ThreadInjectItems", ThreadInjectItemsParams, EmptyResponse),
  "thread/approveGuardianDeniedAction": threadRequest("ThreadApproveGuardianDeniedAction", ThreadApproveGuardianDeniedActionParams, EmptyResponse),
  "thread/attachment/add": threadRequest("ThreadAttachmentAdd", ThreadAttachmentAddParams, ThreadAttachmentAddResponse),
  "thread/attachment/list": threadRequest("ThreadAttachmentList", ThreadAttachmentListParams, ThreadAttachmentListResponse),
  "thread/attachment/remove": threadRequest("ThreadAttachmentRemove", ThreadAttachmentRemoveParams, EmptyResponse),
  "thread/attachmentOwner/list": request("ThreadAttachmentOwnerList", ThreadAttachmentOwnerListParams, ThreadAttachmentOwnerListResponse),
  "feedback/save": request("FeedbackSave", FeedbackSaveParams, FeedbackSaveResponse),
  "permissionProfile/list": request("PermissionProfileList", PermissionProfileListParams, PermissionProfileListResponse),
  "thread/backgroundTerminals/list": experimentalThreadRequest(
    "ThreadBackgroundTerminalsList",
    ThreadBackgroundTerminalsListParams,
    ThreadBackgroundTerminalsListResponse,
  ),
  "thread/backgroundTerminals/terminate": experimentalThreadRequest(
    "ThreadBackgroundTerminalsTerminate",
    ThreadBackgroundTerminalsTerminateParams,
    ThreadBackgroundTerminalsTerminateResponse,
  ),
  "thread/backgroundTerminals/clean": experimentalThreadRequest("ThreadBackgroundTerminalsClean", ThreadBackgroundTerminalsCleanParams, EmptyResponse),
  "thread/goal/set": threadRequest("ThreadGoalSet", ThreadGoalSetParams, ThreadGoalSetResponse),
  "thread/goal/get": threadRequest("ThreadGoalGet", ThreadIdParams, ThreadGoalGetResponse),
  "thread/goal/clear": threadRequest("ThreadGoalClear", ThreadGoalClearParams, ThreadGoalClearResponse),
  "thread/readState/update": threadRequest("ThreadReadStateUpdate", ThreadReadStateUpdateParams, ThreadReadStateUpdateResponse),
  "turn/start": threadRequest("TurnStart", TurnStartParams, TurnStartResponse),
  "turn/steer": threadRequest("TurnSteer", TurnSteerParams, TurnSteerResponse),
  "turn/interrupt": threadRequest("TurnInterrupt", TurnInterruptParams, EmptyResponse),
  "command/exec": request("CommandExec", CommandExecParams, CommandExecResponse),
  "command/exec/write": request("CommandExecWrite", CommandExecWriteParams, EmptyResponse),
  "command/exec/terminate": request("CommandExecTerminate", CommandExecTerminateParams, EmptyResponse),
  "command/exec/resize": request("CommandExecResize", CommandExecResizeParams, EmptyResponse),
  "account/read": request("GetAccount", GetAccountParams, GetAccountResponse),
  "account/login/start": request("LoginAccount", LoginAccountParams, LoginAccountResponse),
  "account/login/cancel": request("CancelLoginAccount", CancelLoginAccountParams, CancelLoginAccountResponse),
  "account/logout": request("LogoutAccount", z.object({}).nullable().optional(), EmptyResponse),
  "account/rateLimits/read": request("GetAccountRateLimits", z.object({}).nullable().optional(), GetAccountRateLimitsResponse),
  "account/bedrock/checkGovCloudRequirements": request(
    "CheckGovCloudRequirements",
    z.object({}),
    GovCloudRequirementsResponse,
  ),
  "model/list": request("ModelList", ModelListParams, ModelListResponse),
  "modelProvider/list": request("ModelProviderList", z.object({}), ModelProviderListResponse),
  "modelProvider/config/write": request("ModelProviderConfigWrite", ModelProviderConfigWriteParams, ModelProviderConfigWriteResponse),
  "modelProvider/capabilities/read": request("ModelProviderCapabilitiesRead", z.object({}), ModelProviderCapabilitiesReadResponse),
  "config/read": request("ConfigRead", ConfigReadParams, ConfigReadResponse),
  "config/value/write": request("ConfigValueWrite", ConfigValueWriteParams, ConfigWriteResponse),
  "config/batchWrite": request("ConfigBatchWrite", ConfigBatchWriteParams, ConfigWriteResponse),
  "configRequirements/read": request("ConfigRequirementsRead", z.object({}), ConfigRequirementsReadResponse),
  "hooks/list": request("HooksList", HooksListParams, HooksListResponse, "threadHint"),
  "skills/list": request("SkillsList", SkillsListParams, SkillsListResponse),
  "skills/config/write": request("SkillsConfigWrite", SkillsConfigWriteParams, SkillsConfigWriteResponse),
  "skills/extraRoots/set": request("SkillsExtraRootsSet", SkillsExtraRootsSetParams, EmptyResponse),
  "plugin/installed": request("PluginInstalled", PluginInstalledParams, PluginInstalledResponse),
  "collaborationMode/list": request("CollaborationModeList", z.object({}), CollaborationModeListResponse),
  "fs/readFile": request("FsReadFile", FsReadFileParams, FsReadFileResponse),
  "fs/writeFile": request("FsWriteFile", FsWriteFileParams, EmptyResponse),
  "fs/createDirectory": request("FsCreateDirectory", FsCreateDirectoryParams, EmptyResponse),
  "fs/getMetadata": request("FsGetMetadata", FsGetMetadataParams, FsGetMetadataResponse),
  "fs/readDirectory": request("FsReadDirectory", FsReadDirectoryParams, FsReadDirectoryResponse),
  "fs/remove": request("FsRemove", FsRemoveParams, EmptyResponse),
  "fs/copy": request("FsCopy", FsCopyParams, EmptyResponse),
  "fs/watch": request("FsWatch", FsWatchParams, FsWatchResponse),
  "fs/unwatch": request("FsUnwatch", FsUnwatchParams, EmptyResponse),
  fuzzyFileSearch: request("FuzzyFileSearch", FuzzyFileSearchParams, FuzzyFileSearchResponse),
  "mcpServerStatus/list": request("ListMcpServerStatus", ListMcpServerStatusParams, ListMcpServerStatusResponse, "threadHint"),
  "mcpServer/tool/call": threadRequest("McpServerToolCall", McpServerToolCallParams, McpServerToolCallResponse),
  "mcpServer/resource/read": request("McpResourceRead", McpResourceReadParams, McpResourceReadResponse, "threadHint"),
  "mcpServer/oauth/login": request("McpServerOauthLogin", McpServerOauthLoginParams, McpServerOauthLoginResponse),
  "experimentalFeature/list": request("ExperimentalFeatureList", ExperimentalFeatureListParams, ExperimentalFeatureListResponse),
  "experimentalFeature/enablement/set": request("ExperimentalFeatureEnablementSet", ExperimentalFeatureEnablementSetParams, ExperimentalFeatureEnablementSetResponse),
  "config/mcpServer/reload": request("McpServerRefresh", z.object({}).nullable().optional(), EmptyResponse),
  "externalAgentConfig/detect": request("ExternalAgentConfigDetect", ExternalAgentConfigDetectParams, ExternalAgentConfigDetectResponse),
  "externalAgentConfig/import": request("ExternalAgentConfigImport", ExternalAgentConfigImportParams, ExternalAgentConfigImportResponse),
  "externalAgentConfig/import/recordHistory": request(
    "ExternalAgentConfigImportHistoryRecord",
    ExternalAgentConfigImportHistoryRecordParams,
    ExternalAgentConfigImportResponse,
  ),
  "externalAgentConfig/import/readHistories": request(
    "ExternalAgentConfigImportHistoriesRead",
    z.object({}).nullable().optional(),
    ExternalAgentConfigImportHistoriesReadResponse,
  ),
} as const satisfies Record<string, RequestSpec>;

/** Client → server notifications. */
export const clientNotifications = {
  initialized: notification("Initialized", z.object({}).optional()),
} as const satisfies Record<string, NotificationSpec>;

/** Server → client notifications. */
export const serverNotifications = {
  "thread/started": notification("ThreadStartedNotification", ThreadStartedNotification),
  "thread/status/changed": notification("ThreadStatusChangedNotification", ThreadStatusChangedNotification),
  "thread/archived": notification("ThreadArchivedNotification", ThreadIdNotification),
  "thread/deleted": notification("ThreadDeletedNotification", ThreadDeletedNotification),
  "thread/unarchived": notification("ThreadUnarchivedNotification", ThreadIdNotification),
  "thread/closed": notification("ThreadClosedNotification", ThreadIdNotification),
  "thread/name/updated": notification("ThreadNameUpdatedNotification", ThreadNameUpdatedNotification),
  "thread/section/changed": notification("ThreadSectionChangedNotification", ThreadSectionChangedNotification),
  "externalAgentConfig/import/progress": notification("ExternalAgentConfigImportProgressNotification", ExternalAgentConfigImportResultsNotification),
  "externalAgentConfig/import/completed": notification("ExternalAgentConfigImportCompletedNotification", ExternalAgentConfigImportResultsNotification),
  "thread/attachment/updated": notification("ThreadAttachmentUpdatedNotification", ThreadAttachmentUpdatedNotification),
  "thread/settings/updated": notification("ThreadSettingsUpdatedNotification", ThreadSettingsUpdatedNotification, true),
  "thread/compacted": notification("ContextCompactedNotification", ContextCompactedNotification),
  "thread/goal/updated": notification("ThreadGoalUpdatedNotification", ThreadGoalUpdatedNotification),
  "thread/goal/cleared": notification("ThreadGoalClearedNotification", ThreadGoalClearedNotification),
  "thread/readState/changed": notification("ThreadReadStateChangedNotification", ThreadReadStateChangedNotification, true),
  "thread/tokenUsage/updated": notification("ThreadTokenUsageUpdatedNotification", ThreadTokenUsageUpdatedNotification),
  "turn/started": notification("TurnStartedNotification", TurnNotification),
  "turn/completed": notification("TurnCompletedNotification", TurnNotification),
  "turn/diff/updated": notification("TurnDiffUpdatedNotification", TurnDiffUpdatedNotification),
  "turn/plan/updated": notification("TurnPlanUpdatedNotification", TurnPlanUpdatedNotification),
  "item/started": notification("ItemStartedNotification", ItemStartedNotification),
  "item/completed": notification("ItemCompletedNotification", ItemCompletedNotification),
  "item/agentMessage/delta": notification("AgentMessageDeltaNotification", ItemDeltaNotification),
  "item/plan/delta": notification("PlanDeltaNotification", ItemDeltaNotification),
  "item/commandExecution/outputDelta": notification("CommandExecutionOutputDeltaNotification", ItemDeltaNotification),
  "item/reasoning/summaryPartAdded": notification(
    "ReasoningSummaryPartAddedNotification",
    ReasoningSummaryPartAddedNotification,
  ),
  "item/reasoning/summaryTextDelta": notification(
    "ReasoningSummaryTextDeltaNotification",
    ReasoningSummaryTextDeltaNotification,
  ),
  "item/reasoning/textDelta": notification("ReasoningTextDeltaNotification", ReasoningTextDeltaNotification),
  "command/exec/outputDelta": notification("CommandExecOutputDeltaNotification", CommandExecOutputDeltaNotification),
  "fs/changed": notification("FsChangedNotification", FsChangedNotification),
  error: notification("ErrorNotification", ErrorNotification),
  "serverRequest/resolved": notification("ServerRequestResolvedNotification", ServerRequestResolvedNotification),
  warning: notification("WarningNotification", WarningNotification),
  "account/login/completed": notification("AccountLoginCompletedNotification", AccountLoginCompletedNotification),
  "account/updated": notification("AccountUpdatedNotification", AccountUpdatedNotification),
  "item/autoApprovalReview/started": notification("ItemGuardianApprovalReviewStartedNotification", ItemGuardianApprovalReviewStartedNotification),
  "item/autoApprovalReview/completed": notification("ItemGuardianApprovalReviewCompletedNotification", ItemGuardianApprovalReviewCompletedNotification),
  guardianWarning: notification("GuardianWarningNotification", GuardianWarningNotification),
  configWarning: notification("ConfigWarningNotification", ConfigWarningNotification),
  deprecationNotice: notification("DeprecationNoticeNotification", DeprecationNoticeNotification),
  "mcpServer/startupStatus/updated": notification("McpServerStatusUpdatedNotification", McpServerStatusUpdatedNotification),
  "mcpServer/oauthLogin/completed": notification("McpServerOauthLoginCompletedNotification", McpServerOauthLoginCompletedNotification),
} as const satisfies Record<string, NotificationSpec>;

/** Server → client requests. */
export const serverRequests = {
  "item/commandExecution/requestApproval": request(
    "CommandExecutionRequestApproval",
    CommandExecutionRequestApprovalParams,
    CommandExecutionRequestApprovalResponse,
  ),
  "item/fileChange/requestApproval": request(
    "FileChangeRequestApproval",
    FileChangeRequestApprovalParams,
    FileChangeRequestApprovalResponse,
  ),
  "item/tool/call": request("DynamicToolCall", DynamicToolCallParams, DynamicToolCallResponse),
  "item/tool/requestUserInput": request("ToolRequestUserInput", ToolRequestUserInputParams, ToolRequestUserInputResponse),
} as const satisfies Record<string, RequestSpec>;

export type ClientRequestMethod = keyof typeof clientRequests;
export type ServerNotificationMethod = keyof typeof serverNotifications;
export type ServerRequestMethod = keyof typeof serverRequests;

/** Params a client sends with request `M`, after validation. */
export type ClientRequestParams<M extends ClientRequestMethod> = z.output<(typeof clientRequests)[M]["params"]>;
/** Params a client may send with request `M` (before defaults and aliases are applied). */
export type ClientRequestInput<M extends ClientRequestMethod> = z.input<(typeof clientRequests)[M]["params"]>;
/** Result the server answers request `M` with. */
export type ClientRequestResult<M extends ClientRequestMethod> = z.input<(typeof clientRequests)[M]["result"]>;
/** Params of server notification `M`. */
export type ServerNotificationParams<M extends ServerNotificationMethod> = z.input<
  (typeof serverNotifications)[M]["params"]
>;
/** Params of server request `M`. */
export type ServerRequestParams<M extends ServerRequestMethod> = z.input<(typeof serverRequests)[M]["params"]>;
/** Result the client answers server request `M` with, after validation. */
export type ServerRequestResult<M extends ServerRequestMethod> = z.output<(typeof serverRequests)[M]["result"]>;

/** Looks a client request up by name; undefined for methods we do not implement. */
export function clientRequestSpec(method: string): RequestSpec | undefined {
  return Object.hasOwn(clientRequests, method) ? clientRequests[method as ClientRequestMethod] : undefined;
}

/** Looks a server notification up by name; undefined for one not in the registry. */
export function serverNotificationSpec(method: string): NotificationSpec | undefined {
  return Object.hasOwn(serverNotifications, method) ? serverNotifications[method as ServerNotificationMethod] : undefined;
}
