import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

describe("the audit log (--session-log)", () => {
  it("holds the client's answers to server requests, after the requests they answer", async () => {
    const logDir = tempDir("aas-audit-");
    const { server } = await launch(
      [
        { items: [{ type: "exec", cmd: "touch approved.txt", callId: "call_ok", sandbox_permissions: "require_escalated", justification: "Write" }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
      { approval: "on-request", sandbox: "workspace-write", args: ["--session-log", logDir] },
    );
    server.onRequest("item/commandExecution/requestApproval", () => ({ decision: "accept" }));
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Touch it.");
    await server.closeStdin();
    const [file] = readdirSync(logDir);
    const lines = readFileSync(path.join(logDir, file!), "utf8").trim().split("\n").map((line) => JSON.parse(line));
    const asked = lines.findIndex((line) => line.dir === "out" && line.msg.method === "item/commandExecution/requestApproval");
    expect(asked).toBeGreaterThan(0);
    const answered = lines.findIndex((line) => line.dir === "in" && line.msg.id === lines[asked].msg.id && !line.msg.method);
    expect(answered).toBeGreaterThan(asked);
    expect(lines[answered].msg.result).toEqual({ decision: "accept" });
  });
});
