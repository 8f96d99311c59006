import type { ContentPart, ToolCall } from "../conversation.js";
import type { ToolSpec } from "../model/modelClient.js";
import type { Config } from "../../config/schema.js";
import type { Clock } from "../../runtime/clock.js";
import type { ApprovalMemory } from "../approvalMemory.js";
import type { ApprovalAsker } from "../approvals.js";
import type { ClientAsker } from "../clientAsker.js";
import type { ExecSessions } from "../exec/execSessions.js";
import type { CommandSandbox } from "../boundary/commandSandbox.js";
import type { LoginShell } from "../exec/loginShell.js";
import type { TurnDiff } from "../patch/turnDiff.js";
import type { TurnSettings } from "../settings.js";
import type { TurnEmitter } from "../turnEvents.js";
import type { TurnEditor } from "./turnEditor.js";

/** What tools share across the server: config, environment, the home to protect, one-time warnings. */
export interface ToolEnvironment {
  readonly config: Config;
  /** Times items (`durationMs`) by the server's clock, so deterministic mode stays deterministic. */
  readonly clock: Clock;
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  /** The only way a command starts: in the sandbox its policy asks for, or as it is for full access. */
  readonly sandbox: CommandSandbox;
  /** Runs `bash -lc` commands without sourcing the login profile each time. */
  readonly loginShell: LoginShell;
  /** Tells clients about a problem once per server (a `configWarning`). */
  warnOnce(summary: string, details: string): void;
  /** Deterministic mode: a command's output reaches clients as one delta when it exits. */
  readonly steadyOutput?: boolean | undefined;
}

/** What a tool may use while it runs. */
export interface ToolContext {
  readonly threadId: string;
  readonly turnId: string;
  readonly cwd: string;
  readonly settings: TurnSettings;
  /** Aborted when the turn is interrupted; tools stop promptly. */
  readonly signal: AbortSignal;
  readonly emit: TurnEmitter;
  readonly ask: ApprovalAsker;
  /** Runs client-declared tools and asks the user questions. */
  readonly client: ClientAsker;
  /** Commands and paths the user accepted for the rest of the thread (`acceptForSession`). */
  readonly sessionApprovals: ApprovalMemory;
  /** Commands this turn started; killed when it ends. */
  readonly sessions: ExecSessions;
  /** The turn's file changes, for `turn/diff/updated`. */
  readonly diff: TurnDiff;
  readonly environment: ToolEnvironment;
  /** The editor's view of files (an ACP editor's unsaved buffers), when the client offers one. */
  readonly editor: TurnEditor;
}

/** A tool the model can call. */
export interface Tool {
  readonly spec: ToolSpec;
  /** Run when called but not offered (tools older models were trained on). */
  readonly hidden?: boolean;
  /** Runs one call and returns what the model gets back; throwing is a bug and fails the turn. */
  run(call: ToolCall, context: ToolContext): Promise<string | ContentPart[]>;
}

/** The tools offered to the model, by name. */
export class ToolRegistry {
  private readonly byName: ReadonlyMap<string, Tool>;

  constructor(tools: readonly Tool[]) {
    this.byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
  }

  /** Specs to offer in a model request. */
  specs(): ToolSpec[] {
    return [...this.byName.values()].filter((tool) => !tool.hidden).map((tool) => tool.spec);
  }

  /** A registry with `extra` tools too; a name already taken keeps its tool. */
  with(extra: readonly Tool[]): ToolRegistry {
    return extra.length === 0 ? this : new ToolRegistry([...extra.filter((tool) => !this.byName.has(tool.spec.name)), ...this.byName.values()]);
  }

  /** The tool called `name`, if offered. */
  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }
}
