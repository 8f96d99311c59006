export { AppServerClient, AppServerError, type ClientInfo, type ServerEvent, type StreamServer } from "./appServerClient.js";
export { spawnTransport, streamTransport, webSocketTransport, type ClientTransport } from "./clientTransport.js";
