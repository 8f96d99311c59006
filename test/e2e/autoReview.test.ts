import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { MockResponseInput } from "../../src/testing/index.js";
import type { ServerProcess } from "../support/serverProcess.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

/** The model asks to run `touch <file>` outside the sandbox (so the decision point asks). */
function escalated(file: string): MockResponseInput {
  return { items: [{ type: "exec", cmd: `touch ${file}`, callId: "call_1", sandbox_permissions: "require_escalated", justification: "Needs to write" }] };
}

/** The reviewer's answer, as the strict JSON the review asks for. */
function assessment(outcome: "allow" | "deny", rationale: string): MockResponseInput {
  return { items: [{ type: "message", text: JSON.stringify({ risk_level: outcome === "allow" ? "low" : "high", user_authorization: "high", outcome, rationale }) }] };
}

const done: MockResponseInput = { items: [{ type: "message", text: "Done." }] };

function lastToolOutput(body: Record<string, unknown>): string {
  const outputs = (body.input as any[]).filter((item) => item.type === "function_call_output");
  return outputs.at(-1)?.output ?? "";
}

function reviews(server: ServerProcess, method: string): any[] {
  return server.messages.filter((m) => m.method === method).map((m) => m.params);
}

function commandItem(server: ServerProcess): any {
  return server.messages.find((m) => m.method === "item/completed" && m.params.item.type === "commandExecution")?.params.item;
}

async function reviewedTurn(script: MockResponseInput[], options: { wire?: "responses" | "chat"; perTurn?: boolean } = {}) {
  const workspace = tempDir("aas-review-");
  const { server, mock } = await launch(script, { approval: "on-request", sandbox: "workspace-write", wire: options.wire });
  const threadId = await startThread(server, options.perTurn ? { cwd: workspace } : { cwd: workspace, approvalsReviewer: "auto_review" });
  const { completed } = await runTurn(server, threadId, "Make the file.", options.perTurn ? { approvalsReviewer: "auto_review" } : {});
  expect(completed.params.turn.status).toBe("completed");
  // The client is never asked: the reviewer answers.
  expect(server.messages.filter((m) => m.method?.endsWith("/requestApproval"))).toEqual([]);
  return { server, mock, workspace };
}

describe("automatic approval review (approvalsReviewer: auto_review)", () => {
  it("takes the reviewer from config.toml's approvals_reviewer when a thread names none, as Codex does", async () => {
    const workspace = tempDir("aas-review-");
    const { server } = await launch([escalated("configured.txt"), assessment("allow", "Asked for."), done], {
      approval: "on-request",
      sandbox: "workspace-write",
      args: ["-c", `approvals_reviewer="auto_review"`],
    });
    const started = await server.request("thread/start", { cwd: workspace });
    expect(started.result.approvalsReviewer).toBe("auto_review");
    const { completed } = await runTurn(server, started.result.thread.id, "Make the file.");
    expect(completed.params.turn.status).toBe("completed");
    expect(server.messages.filter((m) => m.method?.endsWith("/requestApproval"))).toEqual([]);
    expect(existsSync(path.join(workspace, "configured.txt"))).toBe(true);
  });

  it("allow: the reviewer approves, the command runs; the review is announced and its tokens counted", async () => {
    const file = "allowed.txt";
    const { server, mock, workspace } = await reviewedTurn([escalated(file), assessment("allow", "The user asked for this file."), done]);
    expect(existsSync(path.join(workspace, file))).toBe(true);
    const [started] = reviews(server, "item/autoApprovalReview/started");
    expect(started).toMatchObject({ targetItemId: "call_1", action: { type: "command", command: expect.stringContaining(`touch ${file}`), source: "unifiedExec" }, review: { status: "inProgress" } });
    const [completed] = reviews(server, "item/autoApprovalReview/completed");
    expect(completed).toMatchObject({ reviewId: started.reviewId, decisionSource: "agent", review: { status: "approved", riskLevel: "low", userAuthorization: "high", rationale: "The user asked for this file." } });
    // The review request: strict JSON schema output, the transcript as evidence, the exact action.
    const review = mock.requests[1]!.body as any;
    expect(review.text.format).toMatchObject({ type: "json_schema", strict: true, schema: { required: ["risk_level", "user_authorization", "outcome", "rationale"] } });
    expect(JSON.stringify(review.input)).toContain("Make the file.");
    expect(JSON.stringify(review.input)).toContain(`touch ${file}`);
    expect(review.tools ?? []).toEqual([]);
    expect(commandItem(server)).toMatchObject({ status: "completed" });
    const usage = server.messages.filter((m) => m.method === "thread/tokenUsage/updated");
    expect(usage.length).toBeGreaterThanOrEqual(3);
  });

  it("deny: the item is declined, the model is told the rationale, nothing runs", async () => {
    const file = "denied.txt";
    const { server, mock, workspace } = await reviewedTurn([escalated(file), assessment("deny", "Writing outside the sandbox was never asked for."), done]);
    expect(existsSync(path.join(workspace, file))).toBe(false);
    expect(commandItem(server)).toMatchObject({ status: "declined" });
    const told = lastToolOutput(mock.requests[2]!.body);
    expect(told).toContain("denied this action as too risky");
    expect(told).toContain("Writing outside the sandbox was never asked for.");
    expect(reviews(server, "item/autoApprovalReview/completed")[0].review).toMatchObject({ status: "denied", riskLevel: "high" });
  });

  it("an unparsable answer is retried, then denied, with a guardianWarning", async () => {
    const garbage: MockResponseInput = { items: [{ type: "message", text: "Sure, looks fine to me!" }] };
    const { server, mock, workspace } = await reviewedTurn([escalated("garbage.txt"), garbage, garbage, garbage, done]);
    expect(existsSync(path.join(workspace, "garbage.txt"))).toBe(false);
    expect(mock.requests).toHaveLength(5);
    expect(commandItem(server)).toMatchObject({ status: "declined" });
    expect(reviews(server, "item/autoApprovalReview/completed")[0].review.status).toBe("denied");
    expect(reviews(server, "guardianWarning")[0].message).toContain("Automatic approval review failed");
    expect(lastToolOutput(mock.requests[4]!.body)).toContain("the automatic review failed");
  });

  it("an answer that carries outcome twice is a failed review, whichever value comes last", async () => {
    const twice: MockResponseInput = {
      items: [{ type: "message", text: '{"risk_level":"high","user_authorization":"low","outcome":"deny","rationale":"no","outcome":"allow"}' }],
    };
    const { server, mock, workspace } = await reviewedTurn([escalated("twice.txt"), twice, twice, twice, done]);
    expect(existsSync(path.join(workspace, "twice.txt"))).toBe(false);
    expect(mock.requests).toHaveLength(5);
    expect(commandItem(server)).toMatchObject({ status: "declined" });
    expect(reviews(server, "guardianWarning")[0].message).toContain("not the JSON assessment");
  });

  it("a reviewer HTTP error is retried; a later good answer decides", async () => {
    const error: MockResponseInput = { httpStatus: 500, errorBody: { error: { message: "overloaded" } } };
    const { server, workspace } = await reviewedTurn([escalated("retried.txt"), error, assessment("allow", "Fine."), done]);
    expect(existsSync(path.join(workspace, "retried.txt"))).toBe(true);
    expect(reviews(server, "item/autoApprovalReview/completed")[0].review.status).toBe("approved");
  });

  it("reviewer HTTP errors on every attempt: denied", async () => {
    const error: MockResponseInput = { httpStatus: 500, errorBody: { error: { message: "overloaded" } } };
    const { server, workspace } = await reviewedTurn([escalated("never.txt"), error, error, error, done]);
    expect(existsSync(path.join(workspace, "never.txt"))).toBe(false);
    expect(commandItem(server)).toMatchObject({ status: "declined" });
  });

  it("works on the chat wire, and when set per turn", async () => {
    const { server, mock, workspace } = await reviewedTurn([escalated("chat.txt"), assessment("allow", "Asked for."), done], { wire: "chat", perTurn: true });
    expect(existsSync(path.join(workspace, "chat.txt"))).toBe(true);
    expect((mock.requests[1]!.body as any).response_format).toMatchObject({ type: "json_schema", json_schema: { strict: true } });
    expect(reviews(server, "item/autoApprovalReview/completed")[0].review.status).toBe("approved");
  });

  it("thread/approveGuardianDeniedAction: the user overrides a denial; the model and the next review see it, and the retry is allowed", async () => {
    const file = "overridden.txt";
    const { server, mock, workspace } = await reviewedTurn([
      escalated(file),
      assessment("deny", "Not asked for."),
      done,
      escalated(file),
      assessment("allow", "The user approved this exact action."),
      done,
    ]);
    expect(existsSync(path.join(workspace, file))).toBe(false);
    const denied = reviews(server, "item/autoApprovalReview/completed")[0];
    const threadId = denied.threadId;
    // The event as Codex's core records it: snake_case, what clients send back.
    const event = {
      id: denied.reviewId,
      target_item_id: denied.targetItemId,
      turn_id: denied.turnId,
      started_at_ms: denied.startedAtMs,
      completed_at_ms: denied.completedAtMs,
      status: "denied",
      risk_level: denied.review.riskLevel,
      user_authorization: denied.review.userAuthorization,
      rationale: denied.review.rationale,
      decision_source: "agent",
      action: denied.action,
    };
    expect((await server.request("thread/approveGuardianDeniedAction", { threadId, event: { ...event, status: "sideways" } })).error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/^invalid Guardian denial event: .*status/),
    });
    expect((await server.request("thread/approveGuardianDeniedAction", { threadId, event: { ...event, status: "approved" } })).result).toEqual({});
    expect((await server.request("thread/approveGuardianDeniedAction", { threadId, event })).result).toEqual({});

    const { completed } = await runTurn(server, threadId, "Try again, I approve it.");
    expect(completed.params.turn.status).toBe("completed");
    expect(existsSync(path.join(workspace, file))).toBe(true);
    const approval = (body: unknown) => JSON.stringify(body).match(/approved an action that the automatic approval reviewer had denied/g) ?? [];
    // Once (the approved-status event added nothing), in the model's next request and the next review's transcript.
    expect(approval(mock.requests[3]!.body)).toHaveLength(1);
    expect(JSON.stringify(mock.requests[3]!.body)).toContain(`touch ${file}`);
    expect(approval(mock.requests[4]!.body)).toHaveLength(1);
    expect(reviews(server, "item/autoApprovalReview/completed")[1].review.status).toBe("approved");
    // The override is part of the stored history: a thread that is not loaded cannot take one.
    expect((await server.request("thread/approveGuardianDeniedAction", { threadId: "019a0000-0000-7000-8000-000000000000", event })).error.message).toBe(
      "thread not found: 019a0000-0000-7000-8000-000000000000",
    );
  });

  it("an interrupt during a review ends it as aborted, runs nothing, and ends the turn", async () => {
    const workspace = tempDir("aas-review-");
    const hanging: MockResponseInput = { items: [], hang: true };
    const { server } = await launch([escalated("aborted.txt"), hanging], { approval: "on-request", sandbox: "workspace-write" });
    const threadId = await startThread(server, { cwd: workspace, approvalsReviewer: "auto_review" });
    const turnId = (await server.request("turn/start", { threadId, input: [{ type: "text", text: "Make the file." }] })).result.turn.id;
    await server.waitFor((m) => m.method === "item/autoApprovalReview/started");
    expect((await server.request("turn/interrupt", { threadId, turnId })).error).toBeUndefined();
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("interrupted");
    expect(reviews(server, "item/autoApprovalReview/completed").map((review) => review.review.status)).toEqual(["aborted"]);
    expect(existsSync(path.join(workspace, "aborted.txt"))).toBe(false);
    // The command under review never ran; its review ended before the turn did.
    expect(commandItem(server)).toMatchObject({ status: "declined" });
    const order = server.messages.map((m) => m.method);
    expect(order.indexOf("item/autoApprovalReview/completed")).toBeLessThan(order.indexOf("turn/completed"));
    expect(server.messages.filter((m) => m.method?.endsWith("/requestApproval"))).toEqual([]);
  });
});
