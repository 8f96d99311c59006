import type { AppServerClient, ServerEvent } from "../client/index.js";
import type { CommandExecutionApprovalDecision, CommandExecutionRequestApprovalParams, FileChangeRequestApprovalParams, SandboxPolicy, Turn } from "../protocol/index.js";
import type { ContentBlock, PlanEntry, RequestPermissionRequest, RequestPermissionResponse, SessionUpdate, StopReason } from "../vendor/acp.js";
import { findMode, type ModePreset } from "./modes.js";
import { commandPermissionCall, permission, type Decision } from "./permissions.js";
import { promptInput } from "./promptInput.js";
import { outputContent, reviewCall, reviewDone, SHOWN_OUTPUT_CHARS, toolCallDone, toolCallOf } from "./toolCalls.js";
import { historyUpdates } from "./historyUpdates.js";
import { slashCommand } from "./slashCommands.js";

/** What a session needs of the face: the app-server client, and the editor. */
export interface SessionChannel {
  readonly server: AppServerClient;
  /** Sends a `session/update` (in call order). */
  readonly update: (update: SessionUpdate) => Promise<void>;
  /** Asks the editor (`session/request_permission`). */
  readonly askPermission: (request: Omit<RequestPermissionRequest, "sessionId">) => Promise<RequestPermissionResponse>;
}

/**
 * A command's output is re-shown at most this often: each update carries the whole shown tail (up
 * to 64 KiB), and a command printing a line per delta would otherwise send that per line. Its
 * completion shows the rest.
 */
const OUTPUT_UPDATE_MS = 100;

const SANDBOX_POLICIES: Readonly<Record<ModePreset["sandbox"], SandboxPolicy>> = {
  "read-only": { type: "readOnly" },
  "workspace-write": { type: "workspaceWrite" },
  "danger-full-access": { type: "dangerFullAccess" },
};

/** Why a turn failed, as the prompt's error says it. */
export class TurnFailed extends Error {}

/** A turn that did not start: the request's own error is the cause. */
class NotStarted extends Error {
  constructor(override readonly cause: unknown) {
    super("the turn did not start");
  }
}

/**
 * One ACP session: a thread of the app-server. A prompt is a turn, streamed to the editor as
 * `session/update`s from the thread's notifications; approvals become permission requests.
 */
export class AcpSession {
  private turn: { readonly ended: (turn: Turn) => void; readonly cancelled: AbortController; id?: string } | null = null;
  /** The mode or model chosen since the last turn: sent with the next `turn/start`, which keeps them. */
  private pending: { mode?: ModePreset; model?: string } = {};
  private readonly outputs = new Map<string, string>();
  /** When each running command's output was last shown: at most every {@link OUTPUT_UPDATE_MS}. */
  private readonly shownAt = new Map<string, number>();
  private readonly streamed = new Set<string>();
  private lastError: string | null = null;

  constructor(
    readonly id: string,
    private mode: ModePreset,
    private model: string,
    private readonly channel: SessionChannel,
  ) {}

  /** The session's approval preset. */
  get currentMode(): ModePreset {
    return this.mode;
  }

  /** The session's model. */
  get currentModel(): string {
    return this.model;
  }

  /** Switches the approval preset from the next turn on; false for an unknown id. */
  setMode(id: string): boolean {
    const mode = findMode(id);
    if (!mode) return false;
    this.mode = mode;
    this.pending = { ...this.pending, mode };
    return true;
  }

  /** Switches the model from the next turn on. */
  setModel(model: string): void {
    this.model = model;
    this.pending = { ...this.pending, model };
  }

  /** Runs a prompt as a turn (a slash command as its own kind of turn); resolves when it ends, with why it ended. */
  async prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
    const command = slashCommand(blocks);
    if (command) return this.run(() => command.start(this.channel.server, this.id, command.argument));
    const { mode, model } = this.pending;
    this.pending = {};
    try {
      return await this.run(async () => {
        const started = await this.channel.server.request("turn/start", {
          threadId: this.id,
          input: promptInput(blocks),
          ...(mode ? { approvalPolicy: mode.approvalPolicy, sandboxPolicy: SANDBOX_POLICIES[mode.sandbox] } : {}),
          ...(model ? { model } : {}),
        });
        return started.turn.id;
      });
    } catch (error) {
      // Not started: the choices wait for the next prompt.
      if (error instanceof NotStarted) this.pending = { ...(mode ? { mode } : {}), ...(model ? { model } : {}), ...this.pending };
      throw error instanceof NotStarted ? error.cause : error;
    }
  }

  /** Starts a turn with `start` (which returns its id when it knows it) and waits for its end. */
  private async run(start: () => Promise<string | undefined>): Promise<StopReason> {
    if (this.turn) throw new TurnFailed("a prompt is already running in this session; cancel it first");
    let resolve!: (turn: Turn) => void;
    const ended = new Promise<Turn>((done) => (resolve = done));
    const running: { ended: (turn: Turn) => void; cancelled: AbortController; id?: string } = { ended: resolve, cancelled: new AbortController() };
    this.turn = running;
    this.lastError = null;
    try {
      const id = await start();
      if (id) await this.started(running, id);
    } catch (error) {
      if (this.turn === running) this.turn = null;
      throw new NotStarted(error);
    }
    const turn = await ended;
    if (turn.status === "completed") return "end_turn";
    if (turn.status === "interrupted") return "cancelled";
    throw new TurnFailed(turn.error?.message ?? this.lastError ?? "the turn failed");
  }

  /** `session/cancel`: interrupts the running turn; approvals still waiting are answered `cancel`. */
  async cancel(): Promise<void> {
    const turn = this.turn;
    if (!turn) return;
    turn.cancelled.abort();
    if (turn.id) await this.interrupt(turn.id);
  }

  /**
   * The running prompt's turn has this id (from `turn/start`'s answer, or `turn/started` for a turn
   * started without one, `/compact`'s). A cancel that came while it was starting had no turn to
   * interrupt: it is interrupted now, or it would run on, and the prompt never end.
   */
  private async started(running: NonNullable<AcpSession["turn"]>, id: string): Promise<void> {
    if (running.id) return;
    running.id = id;
    // Not awaited: the session's updates wait behind this, and the answer may be held with them.
    if (running.cancelled.signal.aborted) void this.interrupt(id);
  }

  private async interrupt(turnId: string): Promise<void> {
    await this.channel.server.request("turn/interrupt", { threadId: this.id, turnId }).catch(() => undefined);
  }

  /** The thread's stored turns, as the updates an editor shows them with (`session/load`). */
  async replay(turns: readonly Turn[]): Promise<void> {
    for (const update of historyUpdates(turns)) await this.channel.update(update);
  }

  /** Asks the editor about a command. */
  askCommand(params: CommandExecutionRequestApprovalParams): Promise<CommandExecutionApprovalDecision> {
    const { options, decisionOf } = permission(params);
    return this.ask({ toolCall: commandPermissionCall(params), options }, decisionOf);
  }

  /** Asks the editor about a patch (its tool call, with the diff, is already shown). */
  async askFileChange(params: FileChangeRequestApprovalParams): Promise<Decision> {
    const { options, decisionOf } = permission();
    return (await this.ask({ toolCall: { toolCallId: params.itemId, status: "pending" }, options }, decisionOf)) as Decision;
  }

  /** Turns one of the thread's notifications into what the editor is told. */
  async handle(event: ServerEvent): Promise<void> {
    if (event.method === "turn/started" && this.turn) await this.started(this.turn, event.params.turn.id);
    const update = this.updateFor(event);
    if (update) await this.channel.update(update);
  }

  private updateFor(event: ServerEvent): SessionUpdate | undefined {
    switch (event.method) {
      case "item/agentMessage/delta":
        this.streamed.add(event.params.itemId);
        return { sessionUpdate: "agent_message_chunk", content: text(event.params.delta) };
      case "item/reasoning/summaryTextDelta":
      case "item/reasoning/textDelta":
        return { sessionUpdate: "agent_thought_chunk", content: text(event.params.delta) };
      case "item/reasoning/summaryPartAdded":
        return event.params.summaryIndex > 0 ? { sessionUpdate: "agent_thought_chunk", content: text("\n\n") } : undefined;
      case "item/started": {
        const call = toolCallOf(event.params.item);
        return call ? { sessionUpdate: "tool_call", ...call } : undefined;
      }
      case "item/commandExecution/outputDelta": {
        const { itemId, delta } = event.params;
        // Only the tail is shown: keep no more of it than that, and one character to say it was cut.
        const output = ((this.outputs.get(itemId) ?? "") + delta).slice(-(SHOWN_OUTPUT_CHARS + 1));
        this.outputs.set(itemId, output);
        const now = Date.now();
        if (now - (this.shownAt.get(itemId) ?? 0) < OUTPUT_UPDATE_MS) return undefined;
        this.shownAt.set(itemId, now);
        return { sessionUpdate: "tool_call_update", toolCallId: itemId, content: outputContent(output) };
      }
      case "item/completed": {
        const { item } = event.params;
        this.outputs.delete(item.id);
        this.shownAt.delete(item.id);
        if (item.type === "agentMessage" && !this.streamed.delete(item.id) && item.text) return { sessionUpdate: "agent_message_chunk", content: text(item.text) };
        const done = toolCallDone(item);
        return done ? { sessionUpdate: "tool_call_update", ...done } : undefined;
      }
      case "item/autoApprovalReview/started":
        return { sessionUpdate: "tool_call", ...reviewCall(event.params) };
      case "item/autoApprovalReview/completed":
        return { sessionUpdate: "tool_call_update", ...reviewDone(event.params) };
      case "turn/plan/updated":
        return { sessionUpdate: "plan", entries: event.params.plan.map(planEntry) };
      case "thread/tokenUsage/updated": {
        const { last, modelContextWindow } = event.params.tokenUsage;
        return modelContextWindow ? { sessionUpdate: "usage_update", used: last.totalTokens, size: modelContextWindow } : undefined;
      }
      case "thread/name/updated":
        return { sessionUpdate: "session_info_update", title: event.params.threadName ?? null };
      case "error":
        this.lastError = event.params.error.message;
        return undefined;
      case "turn/completed":
        if (this.turn && (!this.turn.id || this.turn.id === event.params.turn.id)) {
          const { ended } = this.turn;
          this.turn = null;
          ended(event.params.turn);
        }
        return undefined;
      default:
        return undefined;
    }
  }

  private async ask(
    request: Omit<RequestPermissionRequest, "sessionId">,
    decisionOf: (response: RequestPermissionResponse) => CommandExecutionApprovalDecision,
  ): Promise<CommandExecutionApprovalDecision> {
    const cancelled = this.turn?.cancelled.signal;
    if (cancelled?.aborted) return "cancel";
    const answer = this.channel.askPermission(request).then(decisionOf);
    if (!cancelled) return answer;
    // A cancelled prompt answers its questions itself: the editor may never.
    return Promise.race([answer, new Promise<"cancel">((resolve) => cancelled.addEventListener("abort", () => resolve("cancel"), { once: true }))]);
  }
}

function text(value: string): ContentBlock {
  return { type: "text", text: value };
}

function planEntry(step: { step: string; status: "pending" | "inProgress" | "completed" }): PlanEntry {
  return { content: step.step, priority: "medium", status: step.status === "inProgress" ? "in_progress" : step.status };
}
