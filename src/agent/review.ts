import type { SandboxPolicy } from "../protocol/policy.js";
import type { ReviewTarget } from "../protocol/reviewMethods.js";
import { READ_ONLY, type CommandSandbox } from "./boundary/commandSandbox.js";
import { directLauncher } from "./boundary/launch.js";
import { commandGate } from "./exec/commandGate.js";

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

/**
 * How git reads the repository for a review. A repository's own config can make git run programs
 * (filters, textconv, `diff.external`, `core.fsmonitor`), so git runs in a read-only sandbox with
 * no network, unless the thread has full access (its model could run git unsandboxed itself).
 */
export interface ReviewGit {
  readonly sandbox: CommandSandbox;
  /** The thread's sandbox policy. */
  readonly policy: SandboxPolicy;
  readonly env: NodeJS.ProcessEnv;
  readonly bwrapPath: string | undefined;
}

/** Git's longest run for a review (a diff of a huge repository), and the most output kept. */
const GIT_TIMEOUT_MS = 120_000;
const GIT_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Builds the review request for `target` in `cwd`, reading the changes with git. */
export async function reviewRequest(target: ReviewTarget, cwd: string, how: ReviewGit): Promise<ReviewRequest> {
  const git = (args: string[]) => runGit(how, cwd, args);
  switch (target.type) {
    case "uncommittedChanges": {
      const diff = await git(["diff", "HEAD"]);
      const untracked = await git(["ls-files", "--others", "--exclude-standard"]);
      const files = untracked.trim() ? `\n\nUntracked files (not in the diff; read them if relevant):\n${untracked.trim()}` : "";
      return request("current changes", "the uncommitted changes (staged, unstaged and untracked)", diff, files);
    }
    case "baseBranch": {
      const base = (await git(["merge-base", "HEAD", target.branch])).trim();
      return request(`changes against '${target.branch}'`, `the changes on this branch against '${target.branch}' (from merge base ${base.slice(0, 12)})`, await git(["diff", base]), "");
    }
    case "commit": {
      const subject = target.title ?? (await git(["log", "-1", "--format=%s", target.sha])).trim();
      const label = `commit ${target.sha.slice(0, 7)}${subject ? `: ${subject}` : ""}`;
      return request(label, `commit ${target.sha}`, await git(["show", "--format=%H%n%an%n%s%n%n%b", target.sha]), "");
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

async function runGit(how: ReviewGit, cwd: string, args: string[]): Promise<string> {
  const argv = ["git", ...args];
  const fullAccess = how.policy.type === "dangerFullAccess" || how.policy.type === "externalSandbox";
  const prepared = fullAccess
    ? { launcher: directLauncher(argv) }
    : await how.sandbox.prepare(argv, { policy: READ_ONLY, workspace: cwd, cwd, env: how.env, bwrapPath: how.bwrapPath });
  if ("problem" in prepared) throw new ReviewTargetError(`git cannot read the repository for the review: ${prepared.problem}`);
  const { OneOffCommand } = await import("./exec/oneOffCommand.js");
  const env: Record<string, string> = Object.fromEntries(Object.entries(how.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  // git writes temp files (textconv's); in a read-only sandbox only its private /dev/shm takes them.
  if (!fullAccess) env.TMPDIR = "/dev/shm";
  const command = new OneOffCommand(await commandGate.startPermit(), prepared.launcher, { cwd, env, pipeStdin: false, outputBytesCap: GIT_OUTPUT_BYTES, timeoutMs: GIT_TIMEOUT_MS, onOutput: null });
  const result = await command.finished;
  if (result.exitCode !== 0 || result.spawnError) {
    const reason = (result.spawnError ?? result.stderr).trim().split("\n")[0] || `exit code ${result.exitCode}`;
    throw new ReviewTargetError(`git ${args[0]} failed in ${cwd}: ${reason}`);
  }
  return result.stdout;
}
