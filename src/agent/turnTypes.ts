/**
 * The shapes a turn's input and kind are described by, shared by the runner and the tools: kept
 * apart from both so neither imports the other (the settings are in settings.ts).
 */
import type { UserInput } from "../protocol/userInput.js";
import type { ReviewRequest } from "./review.js";
import type { UserShellCommand } from "./userShell.js";

/** User input waiting to enter a turn: the initial input, or input steered in later. */
export interface PendingInput {
  /** Id of the `userMessage` item it becomes. */
  readonly id: string;
  readonly clientId: string | null;
  readonly content: readonly UserInput[];
}

/** Where a turn's input comes from: the queue the thread fills as the client steers. */
export interface TurnInputQueue {
  /** Input queued so far. */
  take(): PendingInput[];
  /** Input queued so far; when there is none the queue closes, so the turn can end without losing any. */
  takeOrClose(): PendingInput[];
  /**
   * Aborts once non-empty input is queued (at once if some already is), until the next take: the
   * model call in flight gives way to it, as Codex's queued input cuts the sampling request.
   */
  arrivals(): AbortSignal;
}

/**
 * What kind of turn: the agent loop, a compaction that only summarizes the history
 * (`thread/compact/start`), a review of code changes (`review/start`), or the user's own shell
 * command (`thread/shellCommand`).
 */
export type TurnMode =
  | { readonly kind: "regular" }
  | { readonly kind: "compact" }
  | { readonly kind: "review"; readonly review: ReviewRequest }
  | { readonly kind: "userShell"; readonly shell: UserShellCommand };
