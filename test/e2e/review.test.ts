import { execFileSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapAvailable } from "../support/sandbox.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e" } });
}

/** A repository with one commit on `main`, then a feature branch with one more. */
function repository(): string {
  const dir = tempDir("aas-review-");
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(path.join(dir, "calc.py"), "def add(a, b):\n    return a + b\n");
  git(dir, "add", ".");
  git(dir, "commit", "-q", "-m", "first");
  git(dir, "checkout", "-q", "-b", "feature");
  writeFileSync(path.join(dir, "calc.py"), "def add(a, b):\n    return a - b\n");
  git(dir, "commit", "-q", "-am", "Change add");
  return dir;
}

function inputTexts(body: Record<string, unknown>): string[] {
  return (body.input as any[]).filter((item) => item.type === "message").flatMap((item) => item.content.map((part: any) => part.text ?? ""));
}

describe("review/start", () => {
  it("reviews uncommitted changes inline: entered/exited review mode, the review as the final message and in later history", async () => {
    const cwd = repository();
    writeFileSync(path.join(cwd, "calc.py"), "def add(a, b):\n    return a * b\n");
    writeFileSync(path.join(cwd, "notes.txt"), "untracked\n");
    const { server, mock } = await launch([
      { items: [{ type: "message", text: "Earlier chat." }] },
      { items: [{ type: "message", text: "P1: add() multiplies instead of adding (calc.py:2)." }] },
      { items: [{ type: "message", text: "I will fix it." }] },
    ]);
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    const response = await server.request("review/start", { threadId, target: { type: "uncommittedChanges" } });
    expect(response.error).toBeUndefined();
    const { turn, reviewThreadId } = response.result;
    expect(reviewThreadId).toBe(threadId);
    expect(turn.items).toEqual([expect.objectContaining({ type: "userMessage", id: turn.id })]);
    const done = await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turn.id, "the review turn");
    expect(done.params.turn.status).toBe("completed");

    const reviewRequest = inputTexts(mock.requests[1]!.body).join("\n");
    expect(reviewRequest).toContain("-    return a - b");
    expect(reviewRequest).toContain("+    return a * b");
    expect(reviewRequest).toContain("notes.txt");
    expect(reviewRequest).not.toContain("Earlier chat.");

    const items = server.messages.filter((m) => m.method === "item/completed" && m.params.turnId === turn.id).map((m) => m.params.item);
    expect(items.map((item) => item.type)).toEqual(["userMessage", "enteredReviewMode", "agentMessage", "exitedReviewMode", "agentMessage"]);
    expect(items[1].review).toBe("current changes");
    expect(items[3].review).toBe("P1: add() multiplies instead of adding (calc.py:2).");
    expect(items[4].text).toBe(items[3].review);
    expect(done.params.turn.items.at(-1)?.text).toBe(items[3].review);

    await runTurn(server, threadId, "Fix it.");
    const next = inputTexts(mock.requests[2]!.body);
    expect(next).toContain("Earlier chat.");
    expect(next).toContain("P1: add() multiplies instead of adding (calc.py:2).");
    expect(next.join("\n")).not.toContain("+    return a * b");
  });

  it("reviews a base branch and a commit; an unknown branch is refused with git's reason", async () => {
    const cwd = repository();
    const { server, mock } = await launch([
      { items: [{ type: "message", text: "Branch review." }] },
      { items: [{ type: "message", text: "Commit review." }] },
    ]);
    const threadId = await startThread(server, { cwd });
    const branch = await server.request("review/start", { threadId, target: { type: "baseBranch", branch: "main" } });
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === branch.result.turn.id, "the branch review");
    expect(inputTexts(mock.requests[0]!.body).join("\n")).toContain("+    return a - b");
    const sha = git(cwd, "rev-parse", "HEAD").trim();
    const commit = await server.request("review/start", { threadId, target: { type: "commit", sha } });
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === commit.result.turn.id, "the commit review");
    expect(commit.result.turn.items[0].content[0].text).toBe(`commit ${sha.slice(0, 7)}: Change add`);
    const missing = await server.request("review/start", { threadId, target: { type: "baseBranch", branch: "no-such-branch" } });
    expect(missing.error.code).toBe(-32600);
    expect(missing.error.message).toMatch(/git merge-base failed/);
  });

  it.skipIf(!bwrapAvailable)("reads a hostile repository in a read-only sandbox: its textconv, clean filter and fsmonitor programs write nothing", async () => {
    const cwd = repository();
    const outside = tempDir("aas-review-out-");
    // Each program the repository's config names would leave a file outside if it ran unsandboxed.
    const program = (name: string) => {
      writeFileSync(path.join(cwd, name), `#!/bin/sh\ntouch ${outside}/${name} 2>/dev/null\ncat "$@" 2>/dev/null\nexit 0\n`, { mode: 0o755 });
      return `./${name}`;
    };
    git(cwd, "config", "diff.evil.textconv", program("textconv.sh"));
    git(cwd, "config", "filter.evil.clean", program("clean.sh"));
    git(cwd, "config", "core.fsmonitor", program("fsmonitor.sh"));
    writeFileSync(path.join(cwd, ".gitattributes"), "*.py diff=evil filter=evil\n");
    writeFileSync(path.join(cwd, "calc.py"), "def add(a, b):\n    return a * b\n");
    const { server, mock } = await launch([{ items: [{ type: "message", text: "Reviewed." }] }], { sandbox: "workspace-write" });
    const threadId = await startThread(server, { cwd });
    const response = await server.request("review/start", { threadId, target: { type: "uncommittedChanges" } });
    expect(response.error).toBeUndefined();
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === response.result.turn.id, "the review turn");
    expect(readdirSync(outside)).toEqual([]);
    expect(inputTexts(mock.requests[0]!.body).join("\n")).toContain("+    return a * b");
  });
});
