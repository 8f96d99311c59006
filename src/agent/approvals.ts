import type { CommandAction } from "../protocol/items.js";

/** What a tool asks the client to approve before it acts. */
export type ApprovalRequest =
  | {
      readonly kind: "command";
      readonly itemId: string;
      readonly command: string;
      readonly cwd: string;
      readonly commandActions: readonly CommandAction[];
      readonly reason: string | null;
      /** The argv prefix a client could allow from now on. */
      readonly proposedAmendment: readonly string[] | null;
      /**
       * Starts the command's item. An asker calls it before it asks: a client asker once the thread
       * says it waits on approval, so the client sees Codex's order (status, `item/started`, request).
       */
      readonly announce: () => Promise<void>;
    }
  | {
      readonly kind: "fileChange";
      readonly itemId: string;
      readonly reason: string | null;
      readonly grantRoot: string | null;
      /** Where the patch applies, and the files it writes (what an automatic reviewer assesses). */
      readonly cwd: string;
      readonly files: readonly string[];
      /** The patch as the model wrote it. */
      readonly patch: string;
    };

/**
 * The client's answer, reduced to what a tool acts on: `failed` is an error response, an unknown
 * decision, or a request withdrawn because nobody can answer it.
 */
export type ApprovalDecision =
  | "accept"
  | "acceptForSession"
  | "decline"
  | "cancel"
  | "failed"
  /** Accepted, and commands starting with these words run without asking for the rest of the thread. */
  | { readonly allowPrefix: readonly string[] }
  /** Declined by the automatic reviewer (`approvalsReviewer: "auto_review"`); `message` tells the model why. */
  | { readonly deniedByReviewer: string };

/** Asks the client; resolves once someone answers or the request is withdrawn. */
export type ApprovalAsker = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** The user chose `cancel`: the tool's item is declined and the turn ends interrupted. */
export class TurnCancelled extends Error {
  constructor() {
    super("the user cancelled the turn from an approval request");
    this.name = "TurnCancelled";
  }
}
