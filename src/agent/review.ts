import type { ReviewTarget } from "../protocol/reviewMethods.js";

/** What a review turn asks the model: a label to show and the full request with the changes. */
export interface ReviewRequest {
  readonly label: string;
  readonly prompt: string;
}

/** Beyond this the diff is cut; the reviewer can read more with its tools. */
const MAX_DIFF_CHARS = 200_000;

const REVIEW_INSTRUCTIONS =
  "You are reviewing code changes. Find real problems: bugs, regressions, security issues, missing error " +
  "handling, broken tests, unclear code. List findings by priority, each with the file and line and why it " +
  "matters; say plainly when there is nothing worth changing. You may read files and run read-only commands " +
  "to check a suspicion. Do not modify anything.";

/** A review could not be prepared (not a git repository, unknown branch or commit). */
export class ReviewTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReviewTargetError";
  }
}

/** Builds the review request for `target` in `cwd`, reading the changes with git. */
export async function reviewRequest(target: ReviewTarget, cwd: string): Promise<ReviewRequest> {
  switch (target.type) {
    case "uncommittedChanges": {
      const diff = await git(cwd, ["diff", "HEAD"]);
      const untracked = await git(cwd, ["ls-files", "--others", "--exclude-standard"]);
      const files = untracked.trim() ? `\n\nUntracked files (not in the diff; read them if relevant):\n${untracked.trim()}` : "";
      return request("current changes", "the uncommitted changes (staged, unstaged and untracked)", diff, files);
    }
    case "baseBranch": {
      const base = (await git(cwd, ["merge-base", "HEAD", target.branch])).trim();
      return request(`changes against '${target.branch}'`, `the changes on this branch against '${target.branch}' (from merge base ${base.slice(0, 12)})`, await git(cwd, ["diff", base]), "");
    }
    case "commit": {
      const subject = target.title ?? (await git(cwd, ["log", "-1", "--format=%s", target.sha])).trim();
      const label = `commit ${target.sha.slice(0, 7)}${subject ? `: ${subject}` : ""}`;
      return request(label, `commit ${target.sha}`, await git(cwd, ["show", "--format=%H%n%an%n%s%n%n%b", target.sha]), "");
    }
    case "custom":
      return { label: target.instructions, prompt: `${REVIEW_INSTRUCTIONS}\n\n${target.instructions}` };
  }
}

function request(label: string, what: string, diff: string, extra: string): ReviewRequest {
  const body = diff.trim()
    ? diff.length > MAX_DIFF_CHARS
      ? `${diff.slice(0, MAX_DIFF_CHARS)}\n[diff cut at ${MAX_DIFF_CHARS} characters]`
      : diff
    : "(no changes in the diff)";
  return { label, prompt: `${REVIEW_INSTRUCTIONS}\n\nReview ${what}.\n\n\`\`\`diff\n${body}\n\`\`\`${extra}` };
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { execa } = await import("execa");
  const result = await execa("git", args, { cwd, reject: false, stdin: "ignore", maxBuffer: 64 * 1024 * 1024 });
  if (result.exitCode !== 0) {
    const reason = String(result.stderr).trim().split("\n")[0] || `exit code ${result.exitCode}`;
    throw new ReviewTargetError(`git ${args[0]} failed in ${cwd}: ${reason}`);
  }
  return String(result.stdout);
}
