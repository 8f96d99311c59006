import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { MockResponseInput } from "../../src/testing/index.js";
import { processesMatching } from "../support/processes.js";
import { gitDiff, gitHunks } from "../support/gitDiff.js";
import { bwrapAvailable } from "../support/sandbox.js";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

/** A model response that runs `cmd` with exec_command, then one that answers `text`. */
function execThen(cmd: string, extra: Record<string, unknown> = {}, text = "Done."): MockResponseInput[] {
  return [
    { items: [{ type: "exec", cmd, callId: "call_1", ...extra }] },
    { items: [{ type: "message", text }] },
  ];
}

function lastToolOutput(body: Record<string, unknown>): string {
  const outputs = (body.input as any[]).filter((item) => item.type === "function_call_output" || item.type === "custom_tool_call_output");
  return outputs.at(-1)?.output ?? "";
}

function completedItem(server: ServerProcess, type: string): any {
  return server.messages.find((m) => m.method === "item/completed" && m.params.item.type === type)?.params.item;
}

async function approvalRequest(server: ServerProcess, kind = "item/commandExecution/requestApproval"): Promise<any> {
  return server.waitFor((m) => m.method === kind && m.id !== undefined, kind);
}

const escalated = { sandbox_permissions: "require_escalated", justification: "Needs to write" };

describe("commands", () => {
  it("runs a command and streams its output into a commandExecution item, output back to the model", async () => {
    const { server, mock } = await launch(execThen("echo hello; echo oops >&2; exit 3"), { sandbox: "danger-full-access" });
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Run it.");
    expect(completed.params.turn.status).toBe("completed");
    const item = completedItem(server, "commandExecution");
    expect(item).toMatchObject({ id: "call_1", command: "/bin/bash -lc 'echo hello; echo oops >&2; exit 3'", status: "failed", exitCode: 3 });
    expect(item.aggregatedOutput).toContain("hello\n");
    expect(item.aggregatedOutput).toContain("oops\n");
    expect(typeof item.durationMs).toBe("number");
    const deltas = server.messages.filter((m) => m.method === "item/commandExecution/outputDelta").map((m) => m.params.delta).join("");
    expect(deltas).toContain("hello");
    const output = lastToolOutput(mock.requests[1]!.body);
    expect(output).toMatch(/^Chunk ID: [0-9a-f]{6}\nWall time: [\d.]+ seconds\nProcess exited with code 3\nOriginal token count: \d+\nOutput:\n/);
  });

  it("streams at most 1 MiB of a command's output to clients, marked as cut; the item and the model keep its head and tail", async () => {
    // 3,000,000 characters: a head of "h", a middle of "m", a tail of "t".
    const { server, mock } = await launch(execThen("head -c 600000 /dev/zero | tr '\\0' h; head -c 1800000 /dev/zero | tr '\\0' m; head -c 600000 /dev/zero | tr '\\0' t"), { sandbox: "danger-full-access" });
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Print a lot.");
    const streamed = server.messages.filter((m) => m.method === "item/commandExecution/outputDelta").map((m) => m.params.delta).join("");
    const marker = streamed.indexOf("\n[… output cut: more than 1048576 characters");
    expect(marker).toBe(1024 * 1024);
    expect(streamed.slice(marker)).toMatch(/^\n\[… output cut: [^\n]*\]\n$/);
    const item = completedItem(server, "commandExecution");
    expect(item.aggregatedOutput).toBe(`${"h".repeat(524288)}\n[… ${3_000_000 - 1048576} characters omitted …]\n${"t".repeat(524288)}`);
    const output = lastToolOutput(mock.requests[1]!.body);
    expect(output).toContain("Original token count: 750000\n");
    expect(output).toMatch(/^[\s\S]*Output:\nh+\n…\d+ tokens truncated…\nt+$/);
  });

  it("cuts the streamed output between characters, never inside one", async () => {
    const { server } = await launch(execThen("head -c 1048575 /dev/zero | tr '\\0' a; for i in 1 2 3; do printf '\\360\\237\\230\\200'; done"), { sandbox: "danger-full-access" });
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Print.");
    const streamed = server.messages.filter((m) => m.method === "item/commandExecution/outputDelta").map((m) => m.params.delta).join("");
    expect(streamed.indexOf("\n[… output cut")).toBe(1048575);
    expect(streamed.slice(0, 1048575)).toBe("a".repeat(1048575));
  });

  it("runs the older shell (argv) and shell_command tools, with their timeout", async () => {
    const { server, mock } = await launch(
      [
        { items: [{ type: "shell", command: ["bash", "-lc", "echo argv"], callId: "call_a" }] },
        { items: [{ type: "shell", command: "echo string", callId: "call_b" }] },
        { items: [{ type: "shell", command: "sleep 5", timeout_ms: 300, callId: "call_c" }] },
        { items: [{ type: "message", text: "ok" }] },
      ],
      { sandbox: "danger-full-access" },
    );
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Go.");
    expect(lastToolOutput(mock.requests[1]!.body)).toMatch(/^Exit code: 0\nWall time: [\d.]+ seconds\nOutput:\nargv\n/);
    expect(lastToolOutput(mock.requests[2]!.body)).toContain("string");
    const timedOut = lastToolOutput(mock.requests[3]!.body);
    expect(timedOut).toContain("Exit code: 124");
    expect(timedOut).toContain("command timed out after 300 ms");
    const commands = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "commandExecution").map((m) => m.params.item.command);
    expect(commands).toEqual(["bash -lc 'echo argv'", "/bin/bash -lc 'echo string'", "/bin/bash -lc 'sleep 5'"]);
  });

  it("drops secrets from the command's environment", async () => {
    const { server, mock } = await launch(execThen("echo key=$MY_API_KEY plain=$PLAIN_VALUE"), {
      sandbox: "danger-full-access",
      env: { MY_API_KEY: "sk-secret", PLAIN_VALUE: "visible" },
    });
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Env.");
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("key= plain=visible");
  });

  it("accept: asks for an escalated command, runs it after the answer, and tells the model", async () => {
    const { server, mock } = await launch(execThen("touch approved.txt && echo hi", escalated), { approval: "on-request", sandbox: "workspace-write" });
    const cwd = tempDir("aas-ws-");
    const threadId = await startThread(server, { cwd });
    const turn = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const request = await approvalRequest(server);
    expect(request.params).toMatchObject({ threadId, turnId: turn.result.turn.id, itemId: "call_1", reason: "Needs to write", cwd, command: "/bin/bash -lc 'touch approved.txt && echo hi'" });
    expect(existsSync(path.join(cwd, "approved.txt"))).toBe(false);
    const waiting = server.messages.filter((m) => m.method === "thread/status/changed").at(-1);
    expect(waiting.params.status).toEqual({ type: "active", activeFlags: ["waitingOnApproval"] });
    // Codex's order and offer: the thread waits, the command's item starts, then the request.
    const started = server.messages.findIndex((m) => m.method === "item/started" && m.params.item.type === "commandExecution");
    expect([server.messages.indexOf(waiting), started, server.messages.indexOf(request)]).toEqual([started - 1, started, started + 1]);
    expect(request.params.availableDecisions).toEqual(["accept", { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch", "approved.txt"] } }, "cancel"]);
    server.send({ id: request.id, result: { decision: "accept" } });
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("completed");
    expect(existsSync(path.join(cwd, "approved.txt"))).toBe(true);
    expect(server.messages.find((m) => m.method === "serverRequest/resolved").params).toEqual({ threadId, requestId: request.id });
    expect(completedItem(server, "commandExecution")).toMatchObject({ status: "completed", exitCode: 0, aggregatedOutput: "hi\n" });
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("Process exited with code 0");
  });

  it("acceptForSession: the same command is not asked again in the thread", async () => {
    const { server } = await launch(
      [
        { items: [{ type: "exec", cmd: "echo once", callId: "call_1", ...escalated }] },
        { items: [{ type: "exec", cmd: "echo once", callId: "call_2", ...escalated }] },
        { items: [{ type: "message", text: "ok" }] },
      ],
      { approval: "on-request", sandbox: "workspace-write" },
    );
    const threadId = await startThread(server);
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const request = await approvalRequest(server);
    server.send({ id: request.id, result: { decision: "acceptForSession" } });
    await server.waitFor((m) => m.method === "turn/completed");
    expect(server.messages.filter((m) => m.method === "item/commandExecution/requestApproval")).toHaveLength(1);
    const items = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "commandExecution");
    expect(items.map((m) => m.params.item.status)).toEqual(["completed", "completed"]);
  });

  it("acceptWithExecpolicyAmendment: the script's asked command is allowed from then on, with known-safe commands around it", async () => {
    const script = "touch granted.txt && echo hi";
    const { server } = await launch(
      [
        { items: [{ type: "exec", cmd: script, callId: "call_1" }] },
        { items: [{ type: "exec", cmd: script, callId: "call_2" }] },
        { items: [{ type: "exec", cmd: "touch granted.txt && rm -f granted.txt", callId: "call_3" }] },
        { items: [{ type: "message", text: "ok" }] },
      ],
      { approval: "untrusted", sandbox: "danger-full-access" },
    );
    const threadId = await startThread(server, { cwd: tempDir("aas-ws-") });
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const first = await approvalRequest(server);
    expect(first.params.proposedExecpolicyAmendment).toEqual(["touch", "granted.txt"]);
    server.send({ id: first.id, result: { decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch", "granted.txt"] } } } });
    // The same script runs unasked; one with another asked command is asked again.
    const third = await server.waitFor((m) => m.method === "item/commandExecution/requestApproval" && m.params.itemId === "call_3", "the third command's request");
    server.send({ id: third.id, result: { decision: "decline" } });
    await server.waitFor((m) => m.method === "turn/completed");
    expect(server.messages.filter((m) => m.method === "item/commandExecution/requestApproval").map((m) => m.params.itemId)).toEqual(["call_1", "call_3"]);
    const items = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "commandExecution");
    expect(items.map((m) => m.params.item.status)).toEqual(["completed", "completed", "declined"]);
  });

  it("decline: the item is declined, nothing runs, and the turn goes on with the refusal", async () => {
    const { server, mock } = await launch(execThen("touch declined.txt", escalated, "OK, not run."), { approval: "on-request", sandbox: "workspace-write" });
    const cwd = tempDir("aas-ws-");
    const threadId = await startThread(server, { cwd });
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const request = await approvalRequest(server);
    server.send({ id: request.id, result: { decision: "decline" } });
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("completed");
    expect(completedItem(server, "commandExecution").status).toBe("declined");
    expect(existsSync(path.join(cwd, "declined.txt"))).toBe(false);
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("rejected by user");
    // As Codex: the declined item completes before the thread stops waiting on approval.
    const declinedAt = server.messages.findIndex((m) => m.method === "item/completed" && m.params.item.type === "commandExecution");
    const clearedAt = server.messages.findIndex((m, i) => i > server.messages.indexOf(request) && m.method === "thread/status/changed" && m.params.status.activeFlags?.length === 0);
    expect(declinedAt).toBeGreaterThan(0);
    expect(clearedAt).toBe(declinedAt + 1);
  });

  it("cancel: the item is declined and the turn ends interrupted", async () => {
    const { server, mock } = await launch(execThen("touch x", escalated), { approval: "on-request", sandbox: "workspace-write" });
    const threadId = await startThread(server);
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const request = await approvalRequest(server);
    server.send({ id: request.id, result: { decision: "cancel" } });
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("interrupted");
    expect(completedItem(server, "commandExecution").status).toBe("declined");
    expect(mock.requests).toHaveLength(1);
  });

  it("an error response fails the item and the turn goes on", async () => {
    const { server, mock } = await launch(execThen("touch x", escalated), { approval: "on-request", sandbox: "workspace-write" });
    const threadId = await startThread(server);
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const request = await approvalRequest(server);
    server.send({ id: request.id, error: { code: -32000, message: "client broke" } });
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("completed");
    expect(completedItem(server, "commandExecution").status).toBe("failed");
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("approval request got no valid answer");
  });

  it("a client that closes mid-approval: no hang, the turn is interrupted, nothing ran", async () => {
    const { server } = await launch(execThen("touch late.txt", escalated), { approval: "on-request", sandbox: "workspace-write" });
    const cwd = tempDir("aas-ws-");
    const threadId = await startThread(server, { cwd });
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    await approvalRequest(server);
    expect((await server.closeStdin()).code).toBe(0);
    expect(server.messages.filter((m) => m.method === "turn/completed")).toHaveLength(1);
    expect(["failed", "declined"]).toContain(completedItem(server, "commandExecution").status);
    expect(existsSync(path.join(cwd, "late.txt"))).toBe(false);
  });

  it("untrusted (sent as the legacy `unlessTrusted`): a known-safe command runs without asking, another is asked", async () => {
    const { server } = await launch(
      [
        { items: [{ type: "exec", cmd: "ls -la", callId: "call_ls" }] },
        { items: [{ type: "exec", cmd: "touch made.txt", callId: "call_touch" }] },
        { items: [{ type: "message", text: "ok" }] },
      ],
      { approval: "never", sandbox: "workspace-write" },
    );
    const started = await server.request("thread/start", { cwd: tempDir("aas-ws-"), approvalPolicy: "unlessTrusted" });
    expect(started.result.approvalPolicy).toBe("untrusted");
    const threadId = started.result.thread.id;
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const request = await approvalRequest(server);
    expect(request.params.itemId).toBe("call_touch");
    server.send({ id: request.id, result: { decision: "accept" } });
    await server.waitFor((m) => m.method === "turn/completed");
    expect(server.messages.filter((m) => m.method === "item/commandExecution/requestApproval")).toHaveLength(1);
  });

  it("a long command returns after yield_time_ms; write_stdin reaches it; it completes when it exits", async () => {
    const { server, mock } = await launch(
      [
        { items: [{ type: "exec", cmd: "read line; echo got:$line", callId: "call_1", yield_time_ms: 300 }] },
        { items: [{ type: "function_call", name: "write_stdin", arguments: { session_id: 1, chars: "hello\n", yield_time_ms: 5000 }, callId: "call_2" }] },
        { items: [{ type: "message", text: "ok" }] },
      ],
      { sandbox: "danger-full-access" },
    );
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Go.");
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("Process running with session ID 1");
    const second = lastToolOutput(mock.requests[2]!.body);
    expect(second).toContain("Process exited with code 0");
    expect(second).toContain("got:hello");
    expect(completedItem(server, "commandExecution")).toMatchObject({ status: "completed", exitCode: 0 });
  });

  it("keeps a command still running when its turn ends as a background terminal: listed, polled in a later turn, stopped", async () => {
    const marker = `sleep 3${Date.now() % 1000}.5`;
    const { server, mock } = await launch(
      [
        ...execThen(`echo started; read line; echo got:$line; ${marker}`, { yield_time_ms: 250 }, "Left it running."),
        { items: [{ type: "function_call", name: "write_stdin", arguments: { session_id: 1, chars: "later\n", yield_time_ms: 1000 }, callId: "call_2" }] },
        { items: [{ type: "message", text: "Polled it." }] },
      ],
      { sandbox: "danger-full-access", capabilities: { experimentalApi: true } },
    );
    const threadId = await startThread(server);
    const first = await runTurn(server, threadId, "Start it.");
    expect(first.completed.params.turn.status).toBe("completed");
    // Its item ends with the turn, still in progress: every item of a turn completes before turn/completed.
    expect(completedItem(server, "commandExecution")).toMatchObject({ id: "call_1", status: "inProgress", exitCode: null, aggregatedOutput: "started\n" });
    expect(processesMatching(marker)).not.toEqual([]);
    const listed = await server.request("thread/backgroundTerminals/list", { threadId });
    expect(listed.result).toEqual({ data: [expect.objectContaining({ processId: "1", itemId: "call_1", command: expect.stringContaining(marker), osPid: expect.any(Number) })], nextCursor: null });
    // A later turn reaches it: its work was not lost when the first turn ended.
    await runTurn(server, threadId, "Poll it.");
    expect(lastToolOutput(mock.requests[3]!.body)).toContain("got:later");
    expect((await server.request("thread/backgroundTerminals/terminate", { threadId, processId: "9" })).result).toEqual({ terminated: false });
    expect((await server.request("thread/backgroundTerminals/terminate", { threadId, processId: "1" })).result).toEqual({ terminated: true });
    await waitUntil(() => processesMatching(marker).length === 0);
    expect((await server.request("thread/backgroundTerminals/list", { threadId })).result.data).toEqual([]);
  });

  it("kills background terminals on clean, when the thread unloads and at shutdown; the methods are experimental", async () => {
    const marker = `sleep 5${Date.now() % 1000}.5`;
    const script = [...execThen(`${marker}`, { yield_time_ms: 250 }), ...execThen(`${marker}`, { yield_time_ms: 250 }), ...execThen(`${marker}`, { yield_time_ms: 250 })];
    const { server } = await launch(script, { sandbox: "danger-full-access", capabilities: { experimentalApi: true }, args: ["-c", "thread_unload_delay_secs=0"] });
    const threadId = await startThread(server);
    await runTurn(server, threadId, "One.");
    expect(processesMatching(marker)).toHaveLength(1);
    expect((await server.request("thread/backgroundTerminals/clean", { threadId })).result).toEqual({});
    await waitUntil(() => processesMatching(marker).length === 0);
    await runTurn(server, threadId, "Two.");
    expect(processesMatching(marker)).toHaveLength(1);
    // Nobody watches the thread any more: it unloads, and its commands die with it.
    await server.request("thread/unsubscribe", { threadId });
    await server.waitFor((m) => m.method === "thread/closed", "thread/closed");
    await waitUntil(() => processesMatching(marker).length === 0);
    await server.request("thread/resume", { threadId });
    await runTurn(server, threadId, "Three.");
    expect(processesMatching(marker)).toHaveLength(1);
    expect((await server.closeStdin()).code).toBe(0);
    expect(processesMatching(marker)).toEqual([]);
    const plain = ServerProcess.start();
    await plain.initialize();
    expect((await plain.request("thread/backgroundTerminals/list", { threadId })).error).toEqual({ code: -32600, message: "thread/backgroundTerminals/list requires experimentalApi capability" });
    await plain.closeStdin();
  });

  it("runs the user's thread/shellCommand as a turn of its own, unsandboxed and unasked, and the next turn's model sees it", async () => {
    const { server, mock } = await launch([{ items: [{ type: "message", text: "Seen." }] }], { approval: "untrusted", sandbox: "read-only" });
    const workspace = tempDir("aas-user-shell-");
    const threadId = await startThread(server, { cwd: workspace });
    expect((await server.request("thread/shellCommand", { threadId, command: "echo hi-there > made-by-user.txt; cat made-by-user.txt; exit 3" })).result).toEqual({});
    const completed = await server.waitFor((m) => m.method === "turn/completed", "the shell command's turn");
    expect(completed.params.turn.status).toBe("completed");
    expect(completedItem(server, "commandExecution")).toMatchObject({
      source: "userShell",
      status: "failed",
      exitCode: 3,
      aggregatedOutput: "hi-there\n",
      cwd: workspace,
      commandActions: [{ type: "unknown", command: "echo hi-there > made-by-user.txt; cat made-by-user.txt; exit 3" }],
    });
    // Neither the sandbox (read-only) nor the policy (untrusted) applies to what the user typed.
    expect(existsSync(path.join(workspace, "made-by-user.txt"))).toBe(true);
    expect(server.messages.filter((m) => m.method === "item/commandExecution/requestApproval")).toEqual([]);
    expect(mock.requests).toHaveLength(0);
    await runTurn(server, threadId, "What did I run?");
    const input = JSON.stringify(mock.requests[0]!.body.input);
    expect(input).toContain("<user_shell_command>");
    expect(input).toContain("hi-there");
  });

  it("interrupt kills a running command and its children", async () => {
    const marker = `sleep 4${Date.now() % 1000}.5`;
    const { server } = await launch(execThen(`${marker} & ${marker} & wait`, { yield_time_ms: 30000 }), { sandbox: "danger-full-access" });
    const threadId = await startThread(server);
    const turn = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    await server.waitFor((m) => m.method === "item/started" && m.params.item.type === "commandExecution");
    // The shell and both sleeps carry the marker in their command lines.
    await waitUntil(() => processesMatching(marker).length >= 3);
    await server.request("turn/interrupt", { threadId, turnId: turn.result.turn.id });
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("interrupted");
    expect(completedItem(server, "commandExecution").status).toBe("failed");
    await waitUntil(() => processesMatching(marker).length === 0);
  });
});

/**
 * A user's home (apart from the server's) whose login profile greets on stdout, counts its runs in
 * `profile-runs` (when it may write there), exports a marker, a per-run id and a secret-looking
 * variable, and defines two functions, one needing the extglob option it sets.
 */
function homeWithProfile(): string {
  const home = tempDir("aas-profile-");
  writeFileSync(
    path.join(home, ".bash_profile"),
    [
      "echo Welcome",
      `echo sourced >> "${home}/profile-runs"`,
      "export PROFILE_MARKER=from-profile PROFILE_API_TOKEN=sk-from-profile PROFILE_RUN=$RANDOM$RANDOM$RANDOM",
      'greet() { echo "hello $1"; }',
      "shopt -s extglob",
      'isab() { case "$1" in @(a|b)) echo "$1 is a or b" ;; *) echo "$1 is other" ;; esac; }',
      "",
    ].join("\n"),
  );
  return home;
}

describe("login profile", () => {
  it("runs once, not once per command, and only in a read-only sandbox; its variables and functions reach every command, shown as bash -lc", async () => {
    const home = homeWithProfile();
    const { server, mock } = await launch(
      [
        { items: [{ type: "exec", cmd: "echo marker=$PROFILE_MARKER token=${PROFILE_API_TOKEN:-dropped} run=$PROFILE_RUN", callId: "call_1" }] },
        { items: [{ type: "exec", cmd: "greet world; isab b; echo run=$PROFILE_RUN", callId: "call_2" }] },
        { items: [{ type: "exec", cmd: "echo third; echo line=$LINENO", callId: "call_3" }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
      { sandbox: "danger-full-access", env: { HOME: home } },
    );
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Go.");
    // What the profile prints is not part of any command's output; what it exports passes the
    // environment policy like the server's own variables (secret-looking ones are dropped).
    const first = lastToolOutput(mock.requests[1]!.body);
    expect(first).toMatch(/Output:\nmarker=from-profile token=dropped run=\d+\n$/);
    const run = /run=(\d+)/.exec(first)![1];
    // One run of the profile for both commands (each run draws a new id).
    expect(lastToolOutput(mock.requests[2]!.body)).toContain(`hello world\nb is a or b\nrun=${run}\n`);
    // The script is not rewritten: bash numbers its lines from 1, as under `bash -lc`.
    expect(lastToolOutput(mock.requests[3]!.body)).toContain("third\nline=1\n");
    // The profile ran in a read-only sandbox, even for a full-access thread: it could not write its count.
    expect(existsSync(path.join(home, "profile-runs"))).toBe(false);
    const commands = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "commandExecution").map((m) => m.params.item.command);
    expect(commands).toEqual([
      "/bin/bash -lc 'echo marker=$PROFILE_MARKER token=${PROFILE_API_TOKEN:-dropped} run=$PROFILE_RUN'",
      "/bin/bash -lc 'greet world; isab b; echo run=$PROFILE_RUN'",
      "/bin/bash -lc 'echo third; echo line=$LINENO'",
    ]);
  });

  it("features.shell_snapshot = false runs the profile with every command, as before", async () => {
    const home = homeWithProfile();
    const { server } = await launch(
      [
        { items: [{ type: "exec", cmd: "greet one", callId: "call_1" }] },
        { items: [{ type: "exec", cmd: "greet two", callId: "call_2" }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
      { sandbox: "danger-full-access", args: ["-c", "features.shell_snapshot=false"], env: { HOME: home } },
    );
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Go.");
    expect(readFileSync(path.join(home, "profile-runs"), "utf8")).toBe("sourced\nsourced\n");
    expect(existsSync(path.join(server.home, "shell_snapshots"))).toBe(false);
  });

  it("is not sourced again by the command's own child shells, and its snapshot is gone after shutdown", async () => {
    const home = homeWithProfile();
    const serverHome = tempDir("aas-home-");
    const { server, mock } = await launch(execThen(`echo env=\${BASH_ENV:-none}; bash -c 'type greet >/dev/null 2>&1 && echo child-has-greet || echo child-plain'`), {
      home: serverHome,
      sandbox: "danger-full-access",
      env: { HOME: home },
    });
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Go.");
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("env=none\nchild-plain\n");
    expect(readdirSync(path.join(serverHome, "shell_snapshots"))).toHaveLength(1);
    await server.stop();
    expect(readdirSync(path.join(serverHome, "shell_snapshots"))).toEqual([]);
  });
});

describe("view_image", () => {
  it("shows the model a local image and records an imageView item", async () => {
    const { server, mock } = await launch([
      { items: [{ type: "function_call", name: "view_image", arguments: { path: "shot.png" }, callId: "call_img" }] },
      { items: [{ type: "message", text: "I see it." }] },
    ]);
    const cwd = tempDir("aas-ws-");
    writeFileSync(path.join(cwd, "shot.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Look.");
    expect(completedItem(server, "imageView")).toMatchObject({ id: "call_img", path: path.join(cwd, "shot.png") });
    const output = (mock.requests[1]!.body.input as any[]).find((item) => item.type === "function_call_output").output;
    expect(output).toEqual([{ type: "input_image", image_url: "data:image/png;base64,iVBORw==", detail: "original" }]);
  });

  it("refuses an image outside the cwd and writable roots, a FIFO and a file over 20 MiB, telling the model why", async () => {
    const view = (file: string, callId: string): MockResponseInput => ({ items: [{ type: "function_call", name: "view_image", arguments: { path: file }, callId }] });
    const { server, mock } = await launch(
      [view("link.png", "call_out"), view("pipe.png", "call_fifo"), view("big.png", "call_big"), { items: [{ type: "message", text: "ok" }] }],
      { sandbox: "workspace-write", env: { TMPDIR: "" } },
    );
    const outside = tempDir("aas-outside-");
    writeFileSync(path.join(outside, "secret.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const cwd = tempDir("aas-ws-");
    symlinkSync(path.join(outside, "secret.png"), path.join(cwd, "link.png"));
    execFileSync("mkfifo", [path.join(cwd, "pipe.png")]);
    writeFileSync(path.join(cwd, "big.png"), "");
    truncateSync(path.join(cwd, "big.png"), 20 * 1024 * 1024 + 1); // sparse
    // The temp dirs live under /tmp, itself a writable root unless excluded.
    const threadId = await startThread(server, { cwd, config: { "sandbox_workspace_write.exclude_slash_tmp": true } });
    await runTurn(server, threadId, "Look.");
    expect(lastToolOutput(mock.requests[1]!.body)).toBe(
      `view_image failed: ${path.join(cwd, "link.png")} is outside the directories this turn may read (it resolves to ${path.join(outside, "secret.png")}): the working directory and the writable roots, ${cwd}`,
    );
    expect(lastToolOutput(mock.requests[2]!.body)).toBe(`view_image failed: ${path.join(cwd, "pipe.png")} is not a regular file (it is a FIFO)`);
    expect(lastToolOutput(mock.requests[3]!.body)).toBe(`view_image failed: ${path.join(cwd, "big.png")} is ${20 * 1024 * 1024 + 1} bytes; images larger than 20 MiB are not read`);
    expect(completedItem(server, "imageView")).toBeUndefined();
  });
});

describe.skipIf(!bwrapAvailable)("sandbox", () => {
  it("workspace-write: a write inside the cwd works, outside it and in .git it does not", async () => {
    const outside = tempDir("aas-outside-");
    const { server } = await launch(
      [
        { items: [{ type: "exec", cmd: "touch inside.txt", callId: "call_in" }] },
        { items: [{ type: "exec", cmd: `touch ${outside}/escaped.txt`, callId: "call_out" }] },
        { items: [{ type: "exec", cmd: "touch .git/config2", callId: "call_git" }] },
        { items: [{ type: "message", text: "ok" }] },
      ],
      { approval: "never", sandbox: "workspace-write", env: { TMPDIR: "" } },
    );
    const cwd = tempDir("aas-ws-");
    mkdirSync(path.join(cwd, ".git"));
    // The temp dirs live under /tmp, itself a writable root unless excluded.
    const threadId = await startThread(server, { cwd, config: { "sandbox_workspace_write.exclude_slash_tmp": true } });
    await runTurn(server, threadId, "Go.");
    const statuses = Object.fromEntries(
      server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "commandExecution").map((m) => [m.params.item.id, m.params.item.status]),
    );
    expect(statuses).toEqual({ call_in: "completed", call_out: "failed", call_git: "failed" });
    expect(existsSync(path.join(cwd, "inside.txt"))).toBe(true);
    expect(existsSync(path.join(outside, "escaped.txt"))).toBe(false);
    expect(existsSync(path.join(cwd, ".git", "config2"))).toBe(false);
  });

  it("a sandboxed command gets the login profile's variables and functions too", async () => {
    const home = homeWithProfile();
    const { server, mock } = await launch(execThen("greet sandbox; echo marker=$PROFILE_MARKER"), { approval: "never", sandbox: "read-only", env: { HOME: home } });
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Go.");
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("hello sandbox\nmarker=from-profile\n");
  });

  it("workspace-write blocks the network; full access does not", async () => {
    const probe = (port: number) => `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    const { server, mock } = await launch([], { approval: "never", sandbox: "workspace-write" });
    const port = Number(new URL(mock.url).port);
    mock.push(...execThen(probe(port)));
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Go.");
    expect(completedItem(server, "commandExecution").status).toBe("failed");
    mock.push(...execThen(probe(port)));
    await runTurn(server, threadId, "Again.", { sandboxPolicy: { type: "dangerFullAccess" } });
    const items = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "commandExecution");
    expect(items.at(-1).params.item).toMatchObject({ status: "completed", aggregatedOutput: "connected\n" });
  });

  it("fails closed with a configWarning when bubblewrap cannot start", async () => {
    const { server, mock } = await launch(execThen("touch never.txt"), { approval: "never", sandbox: "workspace-write", args: ["-c", `bwrap_path="/nonexistent/bwrap"`] });
    const cwd = tempDir("aas-ws-");
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Go.");
    expect(completedItem(server, "commandExecution").status).toBe("failed");
    expect(existsSync(path.join(cwd, "never.txt"))).toBe(false);
    const warning = server.messages.find((m) => m.method === "configWarning" && m.params.summary.includes("sandbox"));
    expect(warning.params.details).toContain("bubblewrap");
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("The sandbox is unavailable");
  });
});

describe("apply_patch", () => {
  const patch = [
    "*** Begin Patch",
    "*** Add File: hello.txt",
    "+Hello from the patch",
    "*** Update File: notes.md",
    "@@",
    " # Notes",
    "-old line",
    "+new line",
    "*** Delete File: gone.txt",
    "*** Update File: old/name.txt",
    "*** Move to: new/name.txt",
    "@@",
    "-v1",
    "+v2",
    "*** End Patch",
  ].join("\n");

  function workspace(): string {
    const cwd = tempDir("aas-ws-");
    writeFileSync(path.join(cwd, "notes.md"), "# Notes\nold line\n");
    writeFileSync(path.join(cwd, "gone.txt"), "bye\n");
    mkdirSync(path.join(cwd, "old"));
    writeFileSync(path.join(cwd, "old", "name.txt"), "v1\n");
    return cwd;
  }

  it("adds, updates, deletes and moves, with a fileChange item and the turn's diff", async () => {
    const { server, mock } = await launch([
      { items: [{ type: "apply_patch", patch, callId: "call_p" }] },
      { items: [{ type: "message", text: "ok" }] },
    ], { approval: "on-request", sandbox: "workspace-write" });
    const cwd = workspace();
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Patch.");
    expect(readFileSync(path.join(cwd, "hello.txt"), "utf8")).toBe("Hello from the patch\n");
    expect(readFileSync(path.join(cwd, "notes.md"), "utf8")).toBe("# Notes\nnew line\n");
    expect(existsSync(path.join(cwd, "gone.txt"))).toBe(false);
    expect(existsSync(path.join(cwd, "old", "name.txt"))).toBe(false);
    expect(readFileSync(path.join(cwd, "new", "name.txt"), "utf8")).toBe("v2\n");
    const item = completedItem(server, "fileChange");
    expect(item.status).toBe("completed");
    expect(item.changes.map((change: any) => [path.relative(cwd, change.path), change.kind])).toEqual([
      ["hello.txt", { type: "add" }],
      ["notes.md", { type: "update", move_path: null }],
      ["gone.txt", { type: "delete" }],
      [path.join("old", "name.txt"), { type: "update", move_path: path.join(cwd, "new", "name.txt") }],
    ]);
    expect(item.changes[1].diff).toBe("@@ -1,2 +1,2 @@\n # Notes\n-old line\n+new line\n");
    expect(server.messages.some((m) => m.method === "item/fileChange/requestApproval")).toBe(false);
    const diff = server.messages.find((m) => m.method === "turn/diff/updated").params.diff;
    expect(diff).toContain(`diff --git a${path.join(cwd, "notes.md")} b${path.join(cwd, "notes.md")}`);
    expect(diff).toContain("+Hello from the patch");
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("Success. Updated the following files:");
  });

  it("sends the same diff as git diff for a one-line change in a large file, in the item and the turn's diff", async () => {
    const before = Array.from({ length: 2_001 }, (_, i) => `line ${i}\n`).join("");
    const change = "*** Begin Patch\n*** Update File: big.txt\n@@\n line 1499\n-line 1500\n+line 1500, changed\n*** End Patch";
    const { server } = await launch([
      { items: [{ type: "apply_patch", patch: change, callId: "call_p" }] },
      { items: [{ type: "message", text: "ok" }] },
    ], { approval: "never", sandbox: "workspace-write" });
    const cwd = tempDir("aas-ws-");
    const file = path.join(cwd, "big.txt");
    writeFileSync(file, before);
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Patch.");
    const after = readFileSync(file, "utf8");
    expect(after).toBe(before.replace("line 1500\n", "line 1500, changed\n"));
    const completed = server.messages.findIndex((m) => m.method === "item/completed" && m.params.item.type === "fileChange");
    const updated = server.messages.findIndex((m) => m.method === "turn/diff/updated");
    expect(completed).toBeLessThan(updated);
    expect(server.messages[completed].params.item.changes[0].diff).toBe(gitHunks(before, after));
    expect(server.messages[updated].params.diff).toBe(gitDiff(file, before, after));
  });

  it("asks before writing under a read-only sandbox, and writes nothing when declined", async () => {
    const { server } = await launch([
      { items: [{ type: "apply_patch", patch, callId: "call_p" }] },
      { items: [{ type: "message", text: "ok" }] },
    ], { approval: "on-request", sandbox: "read-only" });
    const cwd = workspace();
    const threadId = await startThread(server, { cwd });
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Patch." }] });
    const request = await approvalRequest(server, "item/fileChange/requestApproval");
    expect(request.params).toMatchObject({ threadId, itemId: "call_p" });
    const started = server.messages.find((m) => m.method === "item/started" && m.params.item.type === "fileChange");
    expect(server.messages.indexOf(started)).toBeLessThan(server.messages.indexOf(request));
    server.send({ id: request.id, result: { decision: "decline" } });
    await server.waitFor((m) => m.method === "turn/completed");
    expect(completedItem(server, "fileChange").status).toBe("declined");
    expect(existsSync(path.join(cwd, "hello.txt"))).toBe(false);
    expect(readFileSync(path.join(cwd, "notes.md"), "utf8")).toBe("# Notes\nold line\n");
  });

  it("applies `apply_patch <<'EOF'` sent through the shell tool", async () => {
    const heredoc = `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: via-shell.txt\n+from heredoc\n*** End Patch\nEOF`;
    const { server } = await launch(execThen(heredoc), { approval: "never", sandbox: "workspace-write" });
    const cwd = tempDir("aas-ws-");
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Patch.");
    expect(readFileSync(path.join(cwd, "via-shell.txt"), "utf8")).toBe("from heredoc\n");
    expect(completedItem(server, "fileChange").status).toBe("completed");
    expect(completedItem(server, "commandExecution")).toBeUndefined();
  });

  it("a patch that does not apply fails whole, with the reason, and touches nothing", async () => {
    const bad = "*** Begin Patch\n*** Add File: first.txt\n+one\n*** Update File: notes.md\n@@\n-no such line\n+x\n*** End Patch";
    const { server, mock } = await launch([
      { items: [{ type: "apply_patch", patch: bad, callId: "call_p" }] },
      { items: [{ type: "apply_patch", patch: "*** Begin Patch\n*** Frobnicate: x\n*** End Patch", callId: "call_q" }] },
      { items: [{ type: "message", text: "ok" }] },
    ], { approval: "never", sandbox: "workspace-write" });
    const cwd = workspace();
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Patch.");
    expect(existsSync(path.join(cwd, "first.txt"))).toBe(false);
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("no such line");
    expect(lastToolOutput(mock.requests[2]!.body)).toContain("invalid patch: line 2");
    const statuses = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "fileChange").map((m) => m.params.item.status);
    expect(statuses).toEqual(["failed", "failed"]);
  });

  it("refuses a write that escapes the writable roots through a symlink", async () => {
    const outside = tempDir("aas-outside-");
    const { server, mock } = await launch([
      { items: [{ type: "apply_patch", patch: "*** Begin Patch\n*** Add File: link/evil.txt\n+x\n*** End Patch", callId: "call_p" }] },
      { items: [{ type: "message", text: "ok" }] },
    ], { approval: "never", sandbox: "workspace-write", env: { TMPDIR: "" } });
    const cwd = tempDir("aas-ws-");
    symlinkSync(outside, path.join(cwd, "link"));
    const threadId = await startThread(server, { cwd, config: { "sandbox_workspace_write.exclude_slash_tmp": true } });
    await runTurn(server, threadId, "Patch.");
    expect(existsSync(path.join(outside, "evil.txt"))).toBe(false);
    expect(completedItem(server, "fileChange").status).toBe("failed");
    expect(lastToolOutput(mock.requests[1]!.body)).toContain("outside the writable roots");
  });
});

/** Polls an outside condition (the process table) until it holds, within a bound. */
async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
