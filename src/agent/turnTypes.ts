/**
 * The shapes a turn is described by, shared by the runner and the tools (which read the turn's
 * settings): kept apart from both so neither imports the other.
 */
import type { AskForApproval, SandboxPolicy } from "../protocol/policy.js";
import type { UserInput } from "../protocol/userInput.js";
import type { ReviewRequest } from "./review.js";

/** User input waiting to enter a turn: the initial input, or input steered in later. */
export interface PendingInput {
  /** Id of the `userMessage` item it becomes. */
  readonly id: string;
  readonly clientId: string | null;
  readonly content: readonly UserInput[];
}

/** The settings one turn runs with. */
export interface TurnSettings {
  readonly model: string;
  readonly modelProvider: string;
  readonly cwd: string;
  readonly approvalPolicy: AskForApproval;
  readonly sandbox: SandboxPolicy;
  readonly reasoningEffort?: string | null;
  readonly reasoningSummary?: string | null;
  readonly baseInstructions?: string | null;
  readonly developerInstructions?: string | null;
}

/** Where a turn's input comes from: the queue the thread fills as the client steers. */
export interface TurnInputQueue {
  /** Input queued so far. */
  take(): PendingInput[];
  /** Input queued so far; when there is none the queue closes, so the turn can end without losing any. */
  takeOrClose(): PendingInput[];
}

/**
 * What kind of turn: the agent loop, a compaction that only summarizes the history
 * (`thread/compact/start`), or a review of code changes (`review/start`).
 */
export type TurnMode = { readonly kind: "regular" } | { readonly kind: "compact" } | { readonly kind: "review"; readonly review: ReviewRequest };
