import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

const RULES = `
[[approval_rules]]
action = "deny"
command = ["git", "push"]
description = "pushing is for humans"

[[approval_rules]]
action = "allow"
command = ["touch"]

[[approval_rules]]
action = "ask"
command_regex = "echo (loud|LOUD).*"

[[approval_rules]]
action = "deny"
path = "**/*.lock"
`;

function homeWithRules(): string {
  const home = tempDir("aas-home-");
  writeFileSync(path.join(home, "config.toml"), RULES);
  return home;
}

function lastToolOutput(body: Record<string, unknown>): string {
  return (body.input as any[]).filter((item) => item.type === "function_call_output" || item.type === "custom_tool_call_output").at(-1)?.output ?? "";
}

describe("[[approval_rules]] in config", () => {
  it("deny refuses without asking, allow runs without asking under untrusted, ask asks under on-request", async () => {
    const { server, mock } = await launch(
      [
        { items: [{ type: "exec", cmd: "git push origin main", callId: "call_deny" }] },
        { items: [{ type: "message", text: "Not pushed." }] },
        { items: [{ type: "exec", cmd: "touch allowed.txt", callId: "call_allow" }] },
        { items: [{ type: "message", text: "Touched." }] },
        { items: [{ type: "exec", cmd: "echo loud noises", callId: "call_ask" }] },
        { items: [{ type: "message", text: "Asked." }] },
      ],
      { home: homeWithRules(), approval: "untrusted", sandbox: "danger-full-access" },
    );
    const cwd = tempDir("aas-ws-");
    const threadId = await startThread(server, { cwd });
    server.onRequest("item/commandExecution/requestApproval", () => ({ decision: "accept" }));

    await runTurn(server, threadId, "Push it.");
    const denied = server.messages.find((m) => m.method === "item/completed" && m.params.item.id === "call_deny").params.item;
    expect(denied.status).toBe("declined");
    expect(lastToolOutput(mock.requests[1]!.body)).toMatch(/approval rule 1 \(deny: pushing is for humans\) forbids this command/);

    await runTurn(server, threadId, "Touch a file.");
    expect(existsSync(path.join(cwd, "allowed.txt"))).toBe(true);
    const asked = () => server.messages.filter((m) => m.method === "item/commandExecution/requestApproval").map((m) => m.params.itemId);
    expect(asked()).toEqual([]);

    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Be loud." }], approvalPolicy: "on-request" });
    await server.waitFor((m) => m.method === "turn/completed" && server.messages.some((x) => x.params?.item?.id === "call_ask" && x.method === "item/completed"), "the loud turn");
    expect(asked()).toEqual(["call_ask"]);

    const config = await server.request("config/read", {});
    expect(config.result.config.approval_rules).toHaveLength(4);
  });

  it("deny rules on paths refuse a patch before anything is written", async () => {
    const patch = "*** Begin Patch\n*** Add File: deps.lock\n+locked\n*** End Patch\n";
    const { server, mock } = await launch(
      [
        { items: [{ type: "apply_patch", patch, callId: "call_patch" }] },
        { items: [{ type: "message", text: "Left it." }] },
      ],
      { home: homeWithRules(), approval: "never", sandbox: "workspace-write" },
    );
    const cwd = tempDir("aas-ws-");
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Lock deps.");
    expect(existsSync(path.join(cwd, "deps.lock"))).toBe(false);
    expect(server.messages.find((m) => m.method === "item/completed" && m.params.item.id === "call_patch").params.item.status).toBe("declined");
    expect(lastToolOutput(mock.requests[1]!.body)).toMatch(/approval rule 4 forbids writing deps.lock/);
  });

  it("refuses to start with an invalid rule, naming the entry", async () => {
    const home = tempDir("aas-home-");
    writeFileSync(path.join(home, "config.toml"), `[[approval_rules]]\naction = "allow"\ncommand = ["ls"]\npath = "*.ts"\n`);
    const server = ServerProcess.start({ home, args: ["app-server"], protocol: false });
    const exit = await server.waitExit();
    expect(exit.code).not.toBe(0);
    expect(server.stderr).toMatch(/approval_rules\.0.*exactly one of `command`, `command_regex` or `path`/);
  });
});
