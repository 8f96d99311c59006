import type { Config } from "../config/schema.js";
import type { Clock } from "../runtime/clock.js";
import type { ThreadItem } from "../protocol/items.js";
import { BASE_INSTRUCTIONS } from "./baseInstructions.js";
import { userText, type ConversationItem, type NativeData, type ToolCall } from "./conversation.js";
import { environmentContext } from "./environmentContext.js";
import { modelClientFor } from "./model/clientFor.js";
import type { ModelClient, ModelEvent, ModelRequest, ModelUsage } from "./model/modelClient.js";
import { ModelError } from "./model/modelError.js";
import { resolveProvider, type ProviderSettings } from "./model/providers.js";
import { announcedRetries, pause, retryDelayMs, sample } from "./model/sampling.js";
import { loadProjectInstructions, sandboxedInstructionReader } from "./projectInstructions.js";
import { discoverSkills, skillsMessage } from "./skills.js";
import { runUserShellCommand } from "./userShell.js";
import { autoReviewAsker } from "./safety/autoReview.js";
import { ToolRegistry, type Tool, type ToolContext } from "./tools/tool.js";
import { builtInTools } from "./tools/builtInTools.js";
import { turnEditor, type EditorFiles } from "./tools/turnEditor.js";
import { readFileTool } from "./tools/readFile.js";
import type { ApprovalMemory } from "./approvalMemory.js";
import type { ApprovalAsker } from "./approvals.js";
import type { ClientAsker } from "./clientAsker.js";
import type { DynamicToolSpec } from "../protocol/clientTools.js";
import { clientTools } from "./tools/clientTools.js";
import { unknownToolCall } from "./tools/unknownTool.js";
import { requestUserInputEnabled, requestUserInputTool } from "./tools/requestUserInput.js";
import type { ExecSessions } from "./exec/execSessions.js";
import type { CommandSandbox } from "./boundary/commandSandbox.js";
import type { LoginShell } from "./exec/loginShell.js";
import { TurnDiff } from "./patch/turnDiff.js";
import type { TurnEmitter } from "./turnEvents.js";
import { toModelMessage } from "./userInputs.js";
import type { ReviewRequest } from "./review.js";
import type { TurnInputQueue, TurnMode } from "./turnTypes.js";
import type { TurnSettings } from "./settings.js";
import type { UserInput } from "../protocol/userInput.js";
import { compactHistory, compactionLimit, DEFAULT_CONTEXT_WINDOW, estimateTokens } from "./compaction.js";

/** One turn to run. */
export interface TurnJob {
  readonly threadId: string;
  readonly turnId: string;
  readonly settings: TurnSettings;
  /** JSON Schema for the final answer, this turn only. */
  readonly outputSchema: unknown;
  /** The thread's model-visible history before this turn. */
  readonly history: readonly ConversationItem[];
  readonly input: TurnInputQueue;
  readonly signal: AbortSignal;
  readonly emit: TurnEmitter;
  readonly ask: ApprovalAsker;
  readonly client: ClientAsker;
  /** Tools the client declared at thread start. */
  readonly dynamicTools: readonly DynamicToolSpec[];
  /** What the user accepted for the rest of the thread; shared by the thread's turns. */
  readonly sessionApprovals: ApprovalMemory;
  /** The thread's running commands: a command outlives its turn (a background terminal) until it ends or is stopped. */
  readonly sessions: ExecSessions;
  readonly mode: TurnMode;
  /** The size of the context at the thread's last model call (or after its last compaction), if known. */
  readonly contextTokens: number | null;
  /** A fresh item id (compaction items have no model-given id). */
  readonly newItemId: () => string;
  /** The editor's view of files, when the thread's client offers one (ACP). */
  readonly editorFiles?: EditorFiles | undefined;
}

/** What the runner needs besides the job. */
export interface TurnRunnerDeps {
  readonly config: Config;
  readonly env: NodeJS.ProcessEnv;
  /** The environment providers take their API keys from: `env`, plus a key the client logged in with. Commands never see it. */
  readonly providerEnv?: NodeJS.ProcessEnv;
  /** Tools offered to the model besides the client's and MCP's (default: the built-in tools). */
  readonly tools?: readonly Tool[] | undefined;
  /** The server's home (kept read-only for sandboxed commands). */
  readonly home: string;
  /** Starts commands, sandboxed as their policy says. */
  readonly sandbox: CommandSandbox;
  readonly clock: Clock;
  /** Runs `bash -lc` commands without sourcing the login profile each time. */
  readonly loginShell: LoginShell;
  /** Tells clients about a problem once per server. */
  readonly warnOnce: (summary: string, details: string) => void;
  /** The tools of the MCP servers ready now; asked again before each model request. */
  readonly mcpTools: (threadId: string) => readonly Tool[];
  /** Extra directories skills are found in (`skills/extraRoots/set`). */
  readonly skillRoots: () => readonly string[];
  /** Deterministic mode: command output reaches clients as one delta at exit (see ToolEnvironment). */
  readonly steadyOutput?: boolean | undefined;
  /** Wraps each turn's model client (`record` keeps every response). */
  readonly modelTap?: ModelTap | undefined;
}

/** Wraps a model client, seeing every request and response through it. */
export type ModelTap = (client: ModelClient) => ModelClient;

/** Whether approvals go to the model's automatic reviewer (`auto_review`, and its legacy name) rather than the client. */
function reviewsAutomatically(settings: TurnSettings): boolean {
  return settings.approvalsReviewer === "auto_review" || settings.approvalsReviewer === "guardian_subagent";
}

/**
 * The agent loop: sample the model with the full history, run the tool calls it makes, feed the
 * results back, and repeat until a response makes no calls and no input is waiting. Throws a
 * {@link ModelError} when the model cannot be reached, the abort reason when interrupted.
 */
export async function runTurn(job: TurnJob, deps: TurnRunnerDeps): Promise<void> {
  const provider = resolveProvider(deps.config, job.settings.modelProvider, deps.providerEnv ?? deps.env);
  const client = deps.modelTap ? deps.modelTap(modelClientFor(provider)) : modelClientFor(provider);
  // On a fresh server the SDK loads while the turn reads AGENTS.md and stores the user's message;
  // a failed load is reported when the first model call waits for it.
  client.prepare().catch(() => undefined);
  const sandboxed = deps.sandbox.roots(job.settings.sandbox, job.settings.cwd, deps.env) !== null;
  // In a sandbox, the editor's files are used only while no command runs (see turnEditor).
  const editor = turnEditor(job.editorFiles, sandboxed, job.signal);
  const tools = new ToolRegistry(deps.tools ?? builtInTools()).with([
    ...clientTools(job.dynamicTools),
    ...(requestUserInputEnabled(deps.config.tools) ? [requestUserInputTool] : []),
    // An editor's files (ACP) are read through it: the model then sees unsaved edits.
    ...(job.editorFiles ? [readFileTool] : []),
  ]);
  // Sandboxed, what the model wrote (AGENTS.md, a repository's SKILL.md) is read only as its processes could read it.
  const readAsSandbox = sandboxed ? sandboxedInstructionReader(deps.sandbox.masked()) : undefined;
  const [project, found] = await Promise.all([
    loadProjectInstructions(job.settings.cwd, deps.home, readAsSandbox),
    discoverSkills(job.settings.cwd, {
      home: deps.home,
      extraRoots: deps.skillRoots(),
      disabled: deps.config.skills?.config?.filter((entry) => !entry.enabled) ?? [],
      ...(readAsSandbox ? { readRepoFile: readAsSandbox } : {}),
    }),
  ]);
  const context = contextMessages(job.settings, project.text, skillsMessage(found.skills));
  // A review starts from the review request alone; only its outcome joins the thread's history.
  const reviewing = job.mode.kind === "review";
  const history = reviewing ? [] : [...job.history];
  const record = async (items: ConversationItem[]): Promise<void> => {
    history.push(...items);
    if (!reviewing) await job.emit({ type: "history", items });
  };

  // Commands belong to the thread; an interrupt kills the ones this turn started.
  const sessions = job.sessions;
  const killOwn = (): void => sessions.killTurn(job.turnId);
  job.signal.addEventListener("abort", killOwn, { once: true });
  const toolContext: ToolContext = {
    editor,
    threadId: job.threadId,
    turnId: job.turnId,
    cwd: job.settings.cwd,
    settings: job.settings,
    signal: job.signal,
    emit: job.emit,
    // With the automatic reviewer, the model answers approvals and the client is never asked.
    ask: reviewsAutomatically(job.settings)
      ? autoReviewAsker({
          client,
          provider,
          model: job.settings.model,
          threadId: job.threadId,
          turnId: job.turnId,
          history: () => history,
          emit: job.emit,
          newId: job.newItemId,
          nowMs: () => deps.clock.nowMs(),
          signal: job.signal,
        })
      : job.ask,
    client: job.client,
    sessionApprovals: job.sessionApprovals,
    sessions,
    diff: new TurnDiff(),
    environment: { config: deps.config, env: deps.env, home: deps.home, sandbox: deps.sandbox, clock: deps.clock, loginShell: deps.loginShell, warnOnce: deps.warnOnce, steadyOutput: deps.steadyOutput },
  };
  try {
    let contextTokens = job.contextTokens;
    const limit = compactionLimit(deps.config.model_auto_compact_token_limit, deps.config.model_context_window ?? DEFAULT_CONTEXT_WINDOW);
    const compact = async (): Promise<void> => {
      const item: ThreadItem = { type: "contextCompaction", id: job.newItemId() };
      await job.emit({ type: "itemStarted", item });
      const base = { model: job.settings.model, instructions: job.settings.baseInstructions || BASE_INSTRUCTIONS, promptCacheKey: job.threadId };
      const { replacement, usage } = await compactHistory(client, provider, base, context, history, job.signal);
      // The summary call counts towards the thread's total; the context is now the new history.
      if (usage) await job.emit({ type: "usage", usage });
      history.splice(0, history.length, ...replacement);
      await job.emit({ type: "compacted", items: replacement });
      contextTokens = estimateTokens(replacement);
      await job.emit({ type: "itemCompleted", item });
    };
    if (job.mode.kind === "compact") return await compact();
    if (job.mode.kind === "userShell") return await record(await runUserShellCommand(job.mode.shell, toolContext, job.newItemId()));
    if (job.mode.kind === "review") await startReview(job, job.mode.review, history);
    let inputs = job.input.take();
    for (;;) {
      // An empty input adds nothing (Codex sends no userMessage item for it) but still runs the model.
      for (const input of inputs.filter((pending) => pending.content.length > 0)) {
        const item: ThreadItem = { type: "userMessage", id: input.id, clientId: input.clientId, content: input.content.map(withTextElements) };
        await job.emit({ type: "itemStarted", item });
        await job.emit({ type: "itemCompleted", item });
        await record([await toModelMessage(input.content, job.settings.cwd)]);
      }
      if (contextTokens !== null && contextTokens >= limit) await compact();
      // A server that became ready mid-turn joins here; one still starting (or failed) never holds the turn up.
      const offered = tools.with(deps.mcpTools(job.threadId));
      const request: ModelRequest = {
        model: job.settings.model,
        instructions: job.settings.baseInstructions || BASE_INSTRUCTIONS,
        input: [...context, ...history],
        tools: offered.specs(),
        reasoning:
          job.settings.reasoningEffort || job.settings.reasoningSummary
            ? { effort: job.settings.reasoningEffort ?? null, summary: job.settings.reasoningSummary ?? null }
            : null,
        outputSchema: job.outputSchema,
        promptCacheKey: job.threadId,
      };
      const { calls, usage } = await sampleWithRetries(client, request, provider, job, record);
      for (const call of calls) {
        const tool = offered.get(call.name);
        const output = tool ? await tool.run(call, toolContext) : await unknownToolCall(call, offered.specs().map((spec) => spec.name), toolContext);
        job.signal.throwIfAborted();
        await record([call, { type: "tool_output", callId: call.callId, custom: call.type === "custom_tool_call", output }]);
      }
      // Codex reports a response's usage once its tool calls are done.
      if (usage) {
        contextTokens = usage.totalTokens;
        await job.emit({ type: "usage", usage });
      }
      // As Codex: once a response is done, the turn's diff so far again, if it changed any file.
      const diff = await toolContext.diff.render();
      if (diff) await job.emit({ type: "notify", method: "turn/diff/updated", params: { threadId: job.threadId, turnId: job.turnId, diff } });
      inputs = calls.length > 0 ? job.input.take() : job.input.takeOrClose();
      if (calls.length === 0 && inputs.length === 0) break;
    }
    if (job.mode.kind === "review") await finishReview(job, job.mode.review, history);
  } finally {
    job.signal.removeEventListener("abort", killOwn);
    // Commands still running keep running as background terminals; their items end with the turn.
    if (!job.signal.aborted) await sessions.detachTurn(job.turnId);
  }
}

/**
 * Streams one model response into items; a broken stream is retried up to `stream_max_retries`,
 * each retry announced with an `error` notification (`willRetry: true`). Input queued meanwhile
 * cuts the response (or the wait before a retry) at once, as in Codex: what finished streaming is
 * kept, what was still streaming is dropped, and the calls received so far are returned to run.
 */
async function sampleWithRetries(
  client: ModelClient,
  request: ModelRequest,
  provider: ProviderSettings,
  job: TurnJob,
  record: (items: ConversationItem[]) => Promise<void>,
): Promise<{ calls: ToolCall[]; usage: ModelUsage | null }> {
  const cut = job.input.arrivals();
  const signal = AbortSignal.any([job.signal, cut]);
  for (let retry = 0; ; retry++) {
    const attempt = new ResponseAttempt(job, record);
    try {
      stream: for await (const events of sample(client, request, provider, signal)) {
        // Deltas go out at once; only events that store something are waited for. (An index, not
        // for-of: across an await, each step of an iterator would be an object per delta.)
        for (let i = 0; i < events.length; i++) {
          // Input arrives between batches or while a store is awaited; from then on nothing of this response goes out.
          if (cut.aborted) break stream;
          const stored = attempt.handle(events[i]!);
          if (stored) await stored;
        }
      }
      if (cut.aborted) await attempt.drop();
      return { calls: attempt.calls, usage: attempt.usage };
    } catch (error) {
      if (job.signal.aborted) throw job.signal.reason;
      if (cut.aborted) {
        await attempt.drop();
        return { calls: attempt.calls, usage: attempt.usage };
      }
      await attempt.abandon();
      if (!(error instanceof ModelError) || retry >= announcedRetries(error, provider)) throw error;
      await job.emit({
        type: "notify",
        method: "error",
        params: {
          threadId: job.threadId,
          turnId: job.turnId,
          willRetry: true,
          error: {
            message: `Reconnecting... ${retry + 1}/${provider.streamMaxRetries}`,
            codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: error.status } },
            additionalDetails: error.message,
          },
        },
      });
      try {
        await pause(retryDelayMs(error, retry + 1), signal);
      } catch (reason) {
        if (job.signal.aborted || !cut.aborted) throw reason;
        // The queued input goes to a fresh request instead of this retry.
        return { calls: [], usage: null };
      }
    }
  }
}

/** One streamed model response: turns model events into items, history entries and usage. */
class ResponseAttempt {
  readonly calls: ToolCall[] = [];
  usage: ModelUsage | null = null;
  private readonly open = new Map<string, ThreadItem>();

  constructor(
    private readonly job: TurnJob,
    private readonly record: (items: ConversationItem[]) => Promise<void>,
  ) {}

  /** Acts on one model event; returns a promise only when there is something to wait for. */
  handle(event: ModelEvent): Promise<void> | void {
    const { job } = this;
    switch (event.type) {
      case "messageStarted":
        return this.start(agentMessage(event.id, ""));
      case "textDelta":
        return job.emit({
          type: "notify",
          method: "item/agentMessage/delta",
          params: { threadId: job.threadId, turnId: job.turnId, itemId: event.id, delta: event.delta },
        });
      case "messageDone":
        return this.finishMessage(event.id, event.text, event.native);
      case "reasoningStarted":
        return this.start({ type: "reasoning", id: event.id, summary: [], content: [] });
      case "summaryPartAdded":
        return job.emit({
          type: "notify",
          method: "item/reasoning/summaryPartAdded",
          params: { threadId: job.threadId, turnId: job.turnId, itemId: event.id, summaryIndex: event.index },
        });
      case "summaryDelta":
        return job.emit({
          type: "notify",
          method: "item/reasoning/summaryTextDelta",
          params: { threadId: job.threadId, turnId: job.turnId, itemId: event.id, delta: event.delta, summaryIndex: event.index },
        });
      case "reasoningTextDelta":
        return job.emit({
          type: "notify",
          method: "item/reasoning/textDelta",
          params: { threadId: job.threadId, turnId: job.turnId, itemId: event.id, delta: event.delta, contentIndex: event.index },
        });
      case "reasoningDone":
        return this.finishReasoning(event.item);
      case "toolCall":
        this.calls.push(event.call);
        return;
      case "completed":
        this.usage = event.usage;
        return;
    }
  }

  private async finishMessage(id: string, text: string, native: NativeData | undefined): Promise<void> {
    if (!this.open.has(id)) await this.start(agentMessage(id, ""));
    await this.complete(agentMessage(id, text));
    await this.record([{ type: "message", role: "assistant", content: [{ type: "output_text", text }], ...(native ? { native } : {}) }]);
  }

  private async finishReasoning(item: Extract<ConversationItem, { type: "reasoning" }>): Promise<void> {
    const { id, summary, content } = item;
    if (!this.open.has(id)) await this.start({ type: "reasoning", id, summary: [], content: [] });
    await this.complete({ type: "reasoning", id, summary, content: content ?? [] });
    await this.record([item]);
  }

  /** The stream broke: items it had started are completed with what arrived; the retry streams new ones. */
  async abandon(): Promise<void> {
    if (this.open.size > 0) await this.job.emit({ type: "completeOpenItems" });
  }

  /**
   * Queued input cut the response: the items still streaming never complete and join no history,
   * and the usage so far is reported again before the input's items, as in Codex.
   */
  async drop(): Promise<void> {
    if (this.open.size > 0) await this.job.emit({ type: "dropOpenItems", ids: [...this.open.keys()] });
    this.open.clear();
    await this.job.emit({ type: "reportUsage" });
  }

  private async start(item: ThreadItem): Promise<void> {
    this.open.set(item.id, item);
    await this.job.emit({ type: "itemStarted", item });
  }

  private async complete(item: ThreadItem): Promise<void> {
    this.open.delete(item.id);
    await this.job.emit({ type: "itemCompleted", item });
  }
}

/** An agent message item with Codex's optional fields spelled out. */
function agentMessage(id: string, text: string): ThreadItem {
  return { type: "agentMessage", id, text, phase: null, memoryCitation: null, delivery: null, questions: null, moderation: null };
}

/** The messages that precede the conversation: developer instructions, the skills, AGENTS.md, environment. */
function contextMessages(settings: TurnSettings, projectInstructions: string | null, skills: string | null): ConversationItem[] {
  const messages: ConversationItem[] = [];
  if (settings.developerInstructions) {
    messages.push({ type: "message", role: "developer", content: [{ type: "input_text", text: settings.developerInstructions }] });
  }
  if (skills) messages.push({ type: "message", role: "developer", content: [{ type: "input_text", text: skills }] });
  if (projectInstructions) messages.push({ type: "message", role: "user", content: [{ type: "input_text", text: projectInstructions }] });
  const environment = environmentContext({
    cwd: settings.cwd,
    approvalPolicy: settings.approvalPolicy,
    sandbox: settings.sandbox,
    shell: "bash",
  });
  messages.push({ type: "message", role: "user", content: [{ type: "input_text", text: environment }] });
  return messages;
}

/** Text inputs echo `text_elements` (empty when the client sent none), as Codex does. */
function withTextElements(input: UserInput): UserInput {
  return input.type === "text" ? { ...input, text_elements: input.text_elements ?? [] } : input;
}

/** A review turn opens with the request as the user's message and an `enteredReviewMode` item. */
async function startReview(job: TurnJob, review: ReviewRequest, history: ConversationItem[]): Promise<void> {
  const message: ThreadItem = { type: "userMessage", id: job.turnId, clientId: null, content: [{ type: "text", text: review.label, text_elements: [] }] };
  await job.emit({ type: "itemStarted", item: message });
  await job.emit({ type: "itemCompleted", item: message });
  const entered: ThreadItem = { type: "enteredReviewMode", id: job.newItemId(), review: review.label };
  await job.emit({ type: "itemStarted", item: entered });
  await job.emit({ type: "itemCompleted", item: entered });
  history.push(userText(review.prompt));
}

/**
 * A review ends with `exitedReviewMode` carrying the review and the review again as the final
 * agent message, as in Codex; the thread's history keeps the request's label and the review.
 */
async function finishReview(job: TurnJob, review: ReviewRequest, history: readonly ConversationItem[]): Promise<void> {
  const text = lastAssistantText(history) ?? "(the reviewer gave no findings)";
  const exited: ThreadItem = { type: "exitedReviewMode", id: job.newItemId(), review: text };
  await job.emit({ type: "itemStarted", item: exited });
  await job.emit({ type: "itemCompleted", item: exited });
  const message: ThreadItem = { type: "agentMessage", id: job.newItemId(), text, phase: null, memoryCitation: null, delivery: null, questions: null, moderation: null };
  await job.emit({ type: "itemStarted", item: message });
  await job.emit({ type: "itemCompleted", item: message });
  await job.emit({
    type: "history",
    items: [userText(`Review ${review.label}.`), { type: "message", role: "assistant", content: [{ type: "output_text", text }] }],
  });
}

function lastAssistantText(history: readonly ConversationItem[]): string | null {
  const message = history.findLast((item) => item.type === "message" && item.role === "assistant");
  if (!message || message.type !== "message") return null;
  return message.content.map((part) => ("text" in part ? part.text : "")).join("");
}
