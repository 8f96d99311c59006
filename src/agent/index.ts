/**
 * The agent's front door: everything the layers above it (threads/, server/ and the composition
 * root) use of the agent, so what is inside agent/ can move without them noticing. Command
 * support (execa) stays behind {@link loadOneOffCommand}, so it loads with the first command.
 */
export { ApprovalMemory } from "./approvalMemory.js";
export { TurnCancelled, type ApprovalDecision, type ApprovalRequest } from "./approvals.js";
export type { ClientAsker } from "./clientAsker.js";
export { DEFAULT_CONTEXT_WINDOW, estimateTokens } from "./compaction.js";
export { ConversationItem } from "./conversation.js";
export { childEnvironment, isSecretEnvName } from "./exec/childEnvironment.js";
export { commandGate } from "./exec/commandGate.js";
export { ExecSessions, type BackgroundTerminal } from "./exec/execSessions.js";
export { LoginShell } from "./exec/loginShell.js";
export type { OneOffCommand, OneOffOptions, OutputChunk } from "./exec/oneOffCommand.js";
export type { PtyCommand } from "./exec/ptyCommand.js";
export { CommandSandbox, type SandboxTarget } from "./boundary/commandSandbox.js";
export { deniedActionApproval } from "./safety/deniedActionApproval.js";
export { NEEDS_LOGIN } from "./mcp/mcpConnection.js";
export { McpCredentialStore } from "./mcp/mcpCredentials.js";
export { McpManager, type McpManagerOptions, type McpServerEntry } from "./mcp/mcpManager.js";
export { mcpProgramPaths } from "./mcp/mcpPrograms.js";
export { ThreadMcpServers } from "./mcp/threadMcpServers.js";
export { OAuthLoginError, startOAuthLogin, type OAuthLogin } from "./mcp/mcpOAuthLogin.js";
export { listModels } from "./model/modelCatalog.js";
export { providerSummaries } from "./model/providers.js";
export { fromResponseItems } from "./model/responseItems.js";
export { ModelError } from "./model/modelError.js";
export { loadProjectInstructions, sandboxedInstructionReader } from "./projectInstructions.js";
export { discoverSkills, type Skill } from "./skills.js";
export { reviewRequest, ReviewTargetError, type ReviewRequest } from "./review.js";
export {
  effectiveSettings,
  hostOf,
  profileSandboxMode,
  threadSettingsRequest,
  turnSettingsRequest,
  TurnSettings,
  type Host,
  type SettingsRequest,
} from "./settings.js";
export { ToolRegistry, type Tool } from "./tools/tool.js";
export type { EditorFiles } from "./tools/turnEditor.js";
export type { TurnEvent, TurnNotification } from "./turnEvents.js";
export type { ModelTap, TurnRunnerDeps } from "./turnRunner.js";
export type { PendingInput, TurnMode } from "./turnTypes.js";
export { checkTurnInput } from "./userInputs.js";
export { AGENT_STEPS, AgentWarmUp } from "./warmUp.js";

/** A `command/exec` process: on pipes, or on a pseudo-terminal (`tty: true`). */
export type ExecProcess = import("./exec/oneOffCommand.js").OneOffCommand | import("./exec/ptyCommand.js").PtyCommand;

/** Loads command support (execa and the one-off command runner) on first use. */
export function loadOneOffCommand(): Promise<typeof import("./exec/oneOffCommand.js")> {
  return import("./exec/oneOffCommand.js");
}

/**
 * Loads the agent loop (the model clients, the tools, the safety checks and patching) at the first
 * turn or warm-up: kept out of start-up, which answers `thread/start` without it.
 */
export function loadTurnRunner(): Promise<typeof import("./turnRunner.js")> {
  return import("./turnRunner.js");
}

/** Loads pseudo-terminal support (node-pty) on the first `tty` command. */
export function loadPtyCommand(): Promise<typeof import("./exec/ptyCommand.js")> {
  return import("./exec/ptyCommand.js");
}
