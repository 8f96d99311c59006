import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { MockResponseInput } from "../../src/testing/index.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

const call = (name: string, args: Record<string, unknown>, callId: string): MockResponseInput => ({ items: [{ type: "function_call", name, arguments: args, callId }] });
const patch = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

/**
 * Every file the server touches for the model or a client, pointed at FIFOs and /dev/zero: each
 * request is refused (or answered) at once, nothing pins Node's I/O threads, and the server
 * still starts threads and exits within 2 s of stdin EOF.
 */
describe("FIFOs and devices", () => {
  it("are refused by every file-touching tool and method; the server keeps serving and exits in time", async () => {
    const cwd = tempDir("aas-special-");
    execFileSync("mkfifo", [path.join(cwd, "pipe"), path.join(cwd, "pipe.png"), path.join(cwd, "AGENTS.md"), path.join(cwd, "CLAUDE.md")]);
    symlinkSync("/dev/zero", path.join(cwd, "zero.png"));
    symlinkSync("/dev/zero", path.join(cwd, "zero.txt"));
    mkdirSync(path.join(cwd, ".agents", "skills", "trap"), { recursive: true });
    execFileSync("mkfifo", [path.join(cwd, ".agents", "skills", "trap", "SKILL.md")]);
    mkdirSync(path.join(cwd, "tree"));
    execFileSync("mkfifo", [path.join(cwd, "tree", "inner")]);
    writeFileSync(path.join(cwd, "ok.txt"), "fine\n");
    writeFileSync(path.join(cwd, "huge.txt"), "");
    truncateSync(path.join(cwd, "huge.txt"), 16 * 1024 * 1024 + 1); // sparse

    const { server, mock } = await launch(
      [
        call("view_image", { path: "pipe.png" }, "v1"),
        call("view_image", { path: "zero.png" }, "v2"),
        call("apply_patch", { input: patch("*** Update File: pipe\n@@\n-a\n+b") }, "p1"),
        call("apply_patch", { input: patch("*** Update File: zero.txt\n@@\n-a\n+b") }, "p2"),
        call("apply_patch", { input: patch("*** Add File: pipe\n+x") }, "p3"),
        call("apply_patch", { input: patch("*** Update File: huge.txt\n@@\n-a\n+b") }, "p4"),
        { items: [{ type: "message", text: "done" }] },
        { items: [{ type: "message", text: "no image" }] },
      ],
      { sandbox: "danger-full-access", approval: "never", args: ["-c", `sandbox_workspace_write.writable_roots=[${JSON.stringify(cwd)}]`], cwd },
    );
    const threadId = await startThread(server, { cwd });
    // AGENTS.md and a SKILL.md are FIFOs: the turn reads neither, and still runs.
    const { completed } = await runTurn(server, threadId, "Go.");
    expect(completed.params.turn.status).toBe("completed");
    const outputs = mock.requests.slice(1).map((request) => {
      const items = (request.body.input as any[]).filter((item) => item.type === "function_call_output");
      return String(items.at(-1)?.output ?? "");
    });
    expect(outputs[0]).toContain("is not a regular file (it is a FIFO)");
    expect(outputs[1]).toMatch(/is not a regular file \(it is a device\)|outside the directories/);
    for (const output of outputs.slice(2, 5)) expect(output).toMatch(/not a regular file|outside/);
    // A patch does not read a file whole past 16 MiB.
    expect(outputs[5]).toContain(`${path.join(cwd, "huge.txt")}: it is larger than 16 MiB, which patches do not edit`);

    const refused = async (method: string, params: object) => {
      const response = await server.request(method, params);
      expect(response.error, `${method} ${JSON.stringify(params)}`).toBeDefined();
      return response.error;
    };
    const fifo = path.join(cwd, "pipe");
    expect((await refused("fs/readFile", { path: fifo })).message).toContain("is not a regular file (it is a FIFO)");
    await refused("fs/readFile", { path: path.join(cwd, "zero.txt") });
    await refused("fs/readFile", { path: "/dev/zero" });
    await refused("fs/writeFile", { path: fifo, dataBase64: "aGk=" });
    await refused("fs/copy", { sourcePath: fifo, destinationPath: path.join(cwd, "copy") });
    await refused("fs/copy", { sourcePath: path.join(cwd, "ok.txt"), destinationPath: fifo });
    await refused("fs/copy", { sourcePath: path.join(cwd, "tree"), destinationPath: path.join(cwd, "tree2"), recursive: true });
    await refused("feedback/save", { classification: "bug", savePath: path.join(cwd, "report.zip"), includeLogs: true, extraLogFiles: [fifo] });
    await refused("feedback/save", { classification: "bug", savePath: fifo });
    const image = await server.request("turn/start", { threadId, input: [{ type: "localImage", path: path.join(cwd, "zero.png") }] });
    // The model is told why the image is missing, as with any unreadable image.
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === image.result.turn.id);
    expect(JSON.stringify(mock.requests.at(-1)!.body.input)).toContain("is not a regular file (it is a device)");
    // Answered, not waited on: the FIFO-named SKILL.md is passed over, CLAUDE.md is not read.
    expect((await server.request("skills/list", { cwds: [cwd] })).result.data[0].skills.map((skill: any) => skill.name)).not.toContain("trap");
    expect((await server.request("externalAgentConfig/detect", { cwds: [cwd] })).result.items).toEqual([]);

    // Nothing is pinned: a thread still starts, and stdin EOF ends the process within 2 s.
    expect((await server.request("thread/start", { cwd })).result.thread.id).toEqual(expect.any(String));
    const exit = await server.closeStdin();
    expect(exit.code).toBe(0);
    expect(exit.elapsedMs).toBeLessThan(2_000);
  });
});
