import type { GuardianAssessmentEvent } from "../../protocol/autoReview.js";
import { userText, type ConversationItem } from "../conversation.js";

/**
 * What the model (and the next automatic review, which reads the transcript) is told when the user
 * approves an action the reviewer denied: that exact action, once, in its original context. The
 * retry is still reviewed; the reviewer now sees that the user authorized it.
 */
export function deniedActionApproval(event: GuardianAssessmentEvent): ConversationItem {
  const approved = JSON.stringify({ action: event.action, outcome: "allowed" }, null, 2);
  return userText(
    [
      `The user approved an action that the automatic approval reviewer had denied (review ${event.id}).`,
      "This approves that exact action, in the same context it was first requested in. It does not approve similar, broader or repeated actions; anything else still needs its own approval, and the retry still goes through automatic review.",
      approved,
    ].join("\n\n"),
  );
}
