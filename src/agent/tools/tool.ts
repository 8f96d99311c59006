import type { ToolCall } from "../conversation.js";
import type { ToolSpec } from "../model/modelClient.js";
import type { TurnEmitter } from "../turnEvents.js";

/** What a tool may use while it runs. */
export interface ToolContext {
  readonly threadId: string;
  readonly turnId: string;
  readonly cwd: string;
  /** Aborted when the turn is interrupted; tools stop promptly. */
  readonly signal: AbortSignal;
  readonly emit: TurnEmitter;
}

/** A tool the model can call. */
export interface Tool {
  readonly spec: ToolSpec;
  /** Runs one call and returns the text the model gets back; throwing is a bug and fails the turn. */
  run(call: ToolCall, context: ToolContext): Promise<string>;
}

/** The tools offered to the model, by name. */
export class ToolRegistry {
  private readonly byName: ReadonlyMap<string, Tool>;

  constructor(tools: readonly Tool[]) {
    this.byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
  }

  /** Specs to offer in a model request. */
  specs(): ToolSpec[] {
    return [...this.byName.values()].map((tool) => tool.spec);
  }

  /** The tool called `name`, if offered. */
  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }
}
