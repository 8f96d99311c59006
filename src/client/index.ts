export { AppServerClient, AppServerError, type ClientInfo, type ServerEvent, type StreamServer } from "./appServerClient.js";
export { spawnTransport, streamTransport, webSocketTransport, type ClientTransport } from "./clientTransport.js";
// The protocol's main types, so a client's code needs one import; all of them are in agent-app-server/protocol.
export type {
  ClientRequestMethod,
  ClientRequestParams,
  ClientRequestResult,
  ClientRequests,
  CommandExecutionApprovalDecision,
  CommandExecutionRequestApprovalParams,
  FileChangeApprovalDecision,
  FileChangeRequestApprovalParams,
  ServerNotification,
  ServerNotificationMethod,
  ServerNotificationParams,
  ServerNotifications,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
  ServerRequests,
  Thread,
  ThreadItem,
  ThreadStatus,
  Turn,
  TurnStatus,
  UserInput,
} from "../protocol/types.js";
