import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { processesMatching } from "../support/processes.js";
import { bwrapAvailable } from "../support/sandbox.js";
import { ServerProcess } from "../support/serverProcess.js";
import { tempDir } from "../support/turnHarness.js";

let markers = 0;
/** A `sleep` duration no other process uses, to find the command in the process table. */
function marker(): string {
  return `31337.${process.pid}${++markers}`;
}

/** Starts the server in a fresh workspace (its cwd), optionally with a configured `sandbox_mode` and more `-c` settings. */
async function serve(sandboxMode?: string, settings: string[] = []): Promise<{ server: ServerProcess; workspace: string }> {
  const workspace = tempDir("aas-exec-");
  const args = ["app-server", ...(sandboxMode ? ["-c", `sandbox_mode="${sandboxMode}"`] : []), ...settings.flatMap((setting) => ["-c", setting])];
  const server = ServerProcess.start({ cwd: workspace, args });
  await server.initialize();
  return { server, workspace };
}

const base64 = (text: string) => Buffer.from(text).toString("base64");

function deltas(server: ServerProcess, processId: string, stream?: string): any[] {
  return server.messages.filter(
    (m) => m.method === "command/exec/outputDelta" && m.params.processId === processId && (!stream || m.params.stream === stream),
  );
}

function decoded(notifications: any[]): string {
  return Buffer.concat(notifications.map((m) => Buffer.from(m.params.deltaBase64, "base64"))).toString("utf8");
}

/**
 * Starts a streamed shell script that puts `sleep <marker>` in the background and then says
 * "ready"; resolves, once "ready" arrived, with the still pending `command/exec` response.
 */
async function startSleeper(server: ServerProcess, processId: string, sleep: string): Promise<{ response: Promise<any> }> {
  const response = server.request("command/exec", { command: ["sh", "-c", `sleep ${sleep} & echo ready; wait`], processId, streamStdoutStderr: true });
  await server.waitFor((m) => m.method === "command/exec/outputDelta" && m.params.processId === processId, `${processId} running`);
  return { response };
}

describe("command/exec", () => {
  it("answers with the exit code and buffered stdout and stderr, in the given cwd and env, capped", async () => {
    const { server, workspace } = await serve("danger-full-access");
    mkdirSync(path.join(workspace, "sub"));
    const result = await server.request("command/exec", {
      command: ["sh", "-c", 'printf "%s|%s|%s" "$GREETING" "${HOME-unset}" "$(pwd)"; printf oops >&2; exit 3'],
      cwd: "sub",
      env: { GREETING: "hi", HOME: null },
    });
    expect(result.result).toEqual({ exitCode: 3, stdout: `hi|unset|${path.join(workspace, "sub")}`, stderr: "oops" });

    const capped = await server.request("command/exec", { command: ["sh", "-c", "printf 0123456789; printf abcdef >&2"], outputBytesCap: 4 });
    expect(capped.result).toEqual({ exitCode: 0, stdout: "0123", stderr: "abcd" });
    expect(server.messages.filter((m) => m.method === "command/exec/outputDelta")).toEqual([]);
  });

  it("streams output deltas in order, all before the response, and marks where the cap cut", async () => {
    const { server } = await serve("danger-full-access");
    const result = await server.request("command/exec", {
      command: ["sh", "-c", "for i in 1 2 3 4 5; do echo line$i; done; echo done >&2"],
      processId: "s1",
      streamStdoutStderr: true,
    });
    expect(result.result).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    expect(decoded(deltas(server, "s1", "stdout"))).toBe("line1\nline2\nline3\nline4\nline5\n");
    expect(decoded(deltas(server, "s1", "stderr"))).toBe("done\n");
    const responseIndex = server.messages.indexOf(result);
    for (const delta of deltas(server, "s1")) expect(server.messages.indexOf(delta)).toBeLessThan(responseIndex);

    await server.request("command/exec", { command: ["printf", "0123456789"], processId: "s2", streamStdoutStderr: true, outputBytesCap: 5 });
    const stdout = deltas(server, "s2", "stdout");
    expect(decoded(stdout)).toBe("01234");
    expect(stdout.map((m) => m.params.capReached)).toEqual([...stdout.slice(1).map(() => false), true]);
  });

  it("writes stdin on command/exec/write and closes it", async () => {
    const { server } = await serve("danger-full-access");
    const response = server.request("command/exec", { command: ["cat"], processId: "cat", streamStdin: true });
    expect((await server.request("command/exec/write", { processId: "cat", deltaBase64: base64("hello ") })).result).toEqual({});
    expect((await server.request("command/exec/write", { processId: "cat", deltaBase64: base64("world"), closeStdin: true })).result).toEqual({});
    expect((await response).result).toEqual({ exitCode: 0, stdout: "hello world", stderr: "" });

    const { response: sleeper } = await startSleeper(server, "no-stdin", marker());
    const refused = await server.request("command/exec/write", { processId: "no-stdin", deltaBase64: base64("x") });
    expect(refused.error).toMatchObject({ code: -32600, message: expect.stringContaining("stdin streaming is not enabled") });
    await server.request("command/exec/terminate", { processId: "no-stdin" });
    expect((await sleeper).result.exitCode).toBe(-1);
  });

  it("runs a tty command on a pseudo-terminal: it reads a typed line, and a resize changes what `tput cols` prints", async () => {
    const { server } = await serve("danger-full-access");
    const script = 'test -t 0 && echo on-a-tty; read -r line; echo "got:$line"; read -r _; tput cols';
    const response = server.request("command/exec", { command: ["bash", "-c", script], processId: "pty", tty: true, size: { cols: 100, rows: 30 } });
    await server.waitFor(() => decoded(deltas(server, "pty")).includes("on-a-tty"), "the terminal check");
    expect((await server.request("command/exec/write", { processId: "pty", deltaBase64: base64("hello\n") })).result).toEqual({});
    await server.waitFor(() => decoded(deltas(server, "pty")).includes("got:hello"), "the echoed line");
    expect((await server.request("command/exec/resize", { processId: "pty", size: { cols: 55, rows: 20 } })).result).toEqual({});
    await server.request("command/exec/write", { processId: "pty", deltaBase64: base64("\n") });
    const result = (await response).result;
    // Streamed, so the response carries no output; stdout and stderr are one stream on a terminal.
    expect(result).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    expect(decoded(deltas(server, "pty")).trim().split(/\r?\n/).at(-1)).toBe("55");
    expect(deltas(server, "pty", "stderr")).toEqual([]);

    const piped = server.request("command/exec", { command: ["cat"], processId: "piped", streamStdin: true });
    const refused = await server.request("command/exec/resize", { processId: "piped", size: { cols: 10, rows: 10 } });
    expect(refused.error).toEqual({ code: -32600, message: 'command/exec "piped" has no terminal to resize (start it with tty: true)' });
    await server.request("command/exec/write", { processId: "piped", closeStdin: true });
    expect((await piped).result.exitCode).toBe(0);
  });

  it("kills a command with everything it started on command/exec/terminate, and at its timeoutMs (exit code 124)", async () => {
    const { server } = await serve("danger-full-access");
    const sleep = marker();
    const { response } = await startSleeper(server, "sleeper", sleep);
    expect(processesMatching(sleep)).not.toEqual([]);
    expect((await server.request("command/exec/terminate", { processId: "sleeper" })).result).toEqual({});
    expect((await response).result).toMatchObject({ exitCode: -1, stderr: "" });
    expect(decoded(deltas(server, "sleeper"))).toBe("ready\n");
    expect(processesMatching(sleep)).toEqual([]);
    const again = await server.request("command/exec/terminate", { processId: "sleeper" });
    expect(again.error).toEqual({ code: -32600, message: 'no active command/exec for process id "sleeper"' });

    const slow = marker();
    const started = performance.now();
    const timedOut = await server.request("command/exec", { command: ["sh", "-c", `sleep ${slow} & wait`], timeoutMs: 200 });
    expect(timedOut.result).toEqual({ exitCode: 124, stdout: "", stderr: "" });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(processesMatching(slow)).toEqual([]);
  });

  it("kills running commands when the connection closes, leaving no process behind", async () => {
    // The configured sandbox (bubblewrap) when it works here, so its process tree is covered too.
    const { server } = await serve(bwrapAvailable ? undefined : "danger-full-access");
    const sleep = marker();
    const { response } = await startSleeper(server, "orphan?", sleep);
    expect(processesMatching(sleep)).not.toEqual([]);
    expect((await server.closeStdin()).code).toBe(0);
    expect((await response).result.exitCode).toBe(-1);
    expect(processesMatching(sleep)).toEqual([]);
  });

  it("rejects bad requests with a message naming the problem", async () => {
    const { server, workspace } = await serve("danger-full-access", ['bwrap_path="/nonexistent/bwrap"']);
    const error = async (method: string, params: object) => (await server.request(method, params)).error;

    expect(await error("command/exec", { command: "ls" })).toMatchObject({ code: -32602, message: expect.stringContaining("params.command") });
    expect(await error("command/exec", { command: ["true"], timeoutMs: 5, disableTimeout: true })).toMatchObject({
      code: -32602,
      message: expect.stringContaining("params.timeoutMs: command/exec cannot set both timeoutMs and disableTimeout"),
    });
    expect(await error("command/exec", { command: ["true"], outputBytesCap: 5, disableOutputCap: true })).toMatchObject({
      code: -32602,
      message: expect.stringContaining("params.outputBytesCap"),
    });
    expect(await error("command/exec", { command: ["true"], size: { rows: 24, cols: 80 } })).toMatchObject({
      code: -32602,
      message: expect.stringContaining("params.size: command/exec size requires tty: true"),
    });
    expect(await error("command/exec/write", { processId: "p" })).toMatchObject({ code: -32602, message: expect.stringContaining("params.deltaBase64") });
    expect(await error("command/exec/write", { processId: "p", deltaBase64: "not base64!" })).toMatchObject({ code: -32602 });
    expect(await error("command/exec", { command: [] })).toEqual({ code: -32600, message: "command must not be empty" });
    expect(await error("command/exec", { command: ["true"], streamStdoutStderr: true })).toEqual({
      code: -32600,
      message: "command/exec tty or streaming requires a client-supplied processId",
    });
    expect(await error("command/exec", { command: ["true"], tty: true })).toEqual({
      code: -32600,
      message: "command/exec tty or streaming requires a client-supplied processId",
    });
    expect(await error("command/exec", { command: ["true"], cwd: "missing" })).toMatchObject({
      code: -32600,
      message: expect.stringContaining("cwd is not a directory"),
    });
    expect(await error("command/exec/write", { processId: "nope", closeStdin: true })).toEqual({
      code: -32600,
      message: 'no active command/exec for process id "nope"',
    });
    expect(await error("command/exec/resize", { processId: "nope", size: { rows: 1, cols: 1 } })).toEqual({
      code: -32600,
      message: 'no active command/exec for process id "nope"',
    });
    // A sandbox that cannot start fails closed: nothing runs unsandboxed.
    expect(await error("command/exec", { command: ["touch", "ran"], sandboxPolicy: { type: "workspaceWrite" } })).toMatchObject({
      code: -32603,
      message: expect.stringContaining("The sandbox is unavailable: `/nonexistent/bwrap` was not found"),
    });
    expect(existsSync(path.join(workspace, "ran"))).toBe(false);

    const { response: sleeper } = await startSleeper(server, "twice", marker());
    expect(await error("command/exec", { command: ["true"], processId: "twice" })).toEqual({
      code: -32600,
      message: 'duplicate active command/exec process id: "twice"',
    });
    await server.request("command/exec/terminate", { processId: "twice" });
    await sleeper;
  });
});

describe.skipIf(!bwrapAvailable)("command/exec sandbox", () => {
  it("runs under the configured sandbox by default: read-only refuses a workspace write, workspace-write allows it, no network", async () => {
    const { server, workspace } = await serve();
    const readOnly = await server.request("command/exec", { command: ["sh", "-c", "echo x > ro.txt"] });
    expect(readOnly.result.exitCode).not.toBe(0);
    expect(readOnly.result.stderr).toContain("Read-only file system");
    expect(existsSync(path.join(workspace, "ro.txt"))).toBe(false);

    const writable = await server.request("command/exec", { command: ["sh", "-c", "echo x > rw.txt"], sandboxPolicy: { type: "workspaceWrite" } });
    expect(writable.result).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    expect(readFileSync(path.join(workspace, "rw.txt"), "utf8")).toBe("x\n");

    // No network unless the policy allows it: only loopback in the sandbox's network namespace.
    const interfaces = (table: string) => [...table.matchAll(/^\s*([\w.-]+):/gm)].map((match) => match[1]).sort();
    const offline = await server.request("command/exec", { command: ["cat", "/proc/net/dev"] });
    expect(interfaces(offline.result.stdout)).toEqual(["lo"]);
    const online = await server.request("command/exec", { command: ["cat", "/proc/net/dev"], sandboxPolicy: { type: "readOnly", networkAccess: true } });
    expect(interfaces(online.result.stdout)).toEqual(interfaces(readFileSync("/proc/net/dev", "utf8")));
  });
});
