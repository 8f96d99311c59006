import { invalidRequest } from "../protocol/errors.js";
import type { ThreadGoal, ThreadGoalSetParams } from "../protocol/goalMethods.js";

/**
 * The goal after `thread/goal/set`: a new objective starts a new goal (usage from zero), other
 * fields change the current one. A goal whose budget is already spent cannot be made active.
 */
export function setGoal(current: ThreadGoal | null, params: ThreadGoalSetParams, nowSeconds: number): ThreadGoal {
  const fresh = params.objective != null && params.objective !== current?.objective;
  if (!current && params.objective == null) {
    throw invalidRequest(`thread ${params.threadId} has no goal yet: give an objective to create one`);
  }
  const base: ThreadGoal =
    fresh || !current
      ? { threadId: params.threadId, objective: params.objective!, status: "active", tokenBudget: null, tokensUsed: 0, timeUsedSeconds: 0, createdAt: nowSeconds, updatedAt: nowSeconds }
      : current;
  const goal: ThreadGoal = {
    ...base,
    status: params.status ?? (fresh ? "active" : base.status),
    tokenBudget: params.tokenBudget !== undefined ? params.tokenBudget : base.tokenBudget,
    updatedAt: nowSeconds,
  };
  // Raising the budget of a goal stopped by it lets it go on, unless the client says otherwise.
  if (goal.status === "budgetLimited" && params.status == null && !overBudget(goal)) return { ...goal, status: "active" };
  if (goal.status === "active" && overBudget(goal)) return { ...goal, status: "budgetLimited" };
  return goal;
}

/** The goal after a turn spent `tokens` and `seconds` on it; it becomes `budgetLimited` once over budget. */
export function chargeTurn(goal: ThreadGoal, tokens: number, seconds: number, nowSeconds: number): ThreadGoal {
  const charged = { ...goal, tokensUsed: goal.tokensUsed + tokens, timeUsedSeconds: goal.timeUsedSeconds + seconds, updatedAt: nowSeconds };
  return charged.status === "active" && overBudget(charged) ? { ...charged, status: "budgetLimited" } : charged;
}

/** Refuses a new turn while the goal's budget is spent: the client must raise it or change the goal first. */
export function checkGoalAllowsTurn(goal: ThreadGoal | null): void {
  if (goal?.status !== "budgetLimited") return;
  throw invalidRequest(
    `the goal of thread ${goal.threadId} has used its token budget (${goal.tokensUsed} of ${goal.tokenBudget} tokens); ` +
      "raise tokenBudget or change the goal with thread/goal/set, or clear it, before starting another turn",
  );
}

function overBudget(goal: ThreadGoal): boolean {
  return goal.tokenBudget != null && goal.tokensUsed >= goal.tokenBudget;
}
