import { execFileSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startMockModel, type MockResponseInput } from "../../src/testing/index.js";
import { RawWebSocketClient } from "../support/rawWebSocket.js";
import { ownDirs, runAsModes, type RunAs } from "../support/runAs.js";
import { programWorks } from "../support/programs.js";
import { bwrapAvailable } from "../support/sandbox.js";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, mocks, providerArgs, runTurn, servers, startThread, tempDir } from "../support/turnHarness.js";

/**
 * A sandboxed command reaches nothing of the server that runs it: no descriptor beyond 0–2 (even
 * those the server inherited), no Unix socket (the server's own control socket included), no
 * listener of the server even when the policy grants network, none of the server's files (its
 * home, its token file), and not the server process itself. Each under the server as root and as
 * an unprivileged user.
 */

/**
 * Lists the shell's own open descriptors (ls runs as its child while the shell holds nothing but
 * what it started with), then tries to write through fds 3 and 4.
 */
const LIST_FDS = "echo FDS; ls /proc/$$/fd; echo END; { echo leaked >&3; } 2>/dev/null; { echo leaked >&4; } 2>/dev/null; true";

/** A Node script that connects (a Unix socket path, or a TCP port on 127.0.0.1), asks for /readyz, and prints what happened. */
const PROBE = `const net = require("node:net");
const [target] = process.argv.slice(2);
const socket = /^\\d+$/.test(target) ? net.connect(Number(target), "127.0.0.1") : net.connect(target);
socket.on("connect", () => { console.log("CONNECTED"); socket.write("GET /readyz HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"); });
socket.on("data", (data) => console.log("DATA " + data.toString().split("\\r\\n")[0]));
socket.on("error", (error) => console.log("ERROR " + error.code));
socket.on("close", () => { console.log("CLOSED"); process.exit(0); });
setTimeout(() => process.exit(0), 3000);
`;

/**
 * Python (Node has no SCM_RIGHTS): connects to the listener on 127.0.0.1:PORT, and while the
 * server looks for who holds the socket, holds it nowhere (in flight over a socketpair); then takes
 * it back and asks the server to run CMD with full access. Tries a few times; prints what came back.
 */
const SMUGGLER = `import json, os, socket, struct, sys, time
port, cmd = int(sys.argv[1]), sys.argv[2]
def frame(message):
    data = json.dumps(message).encode(); mask = os.urandom(4)
    return bytes([0x81, 0x80 | 126]) + struct.pack(">H", len(data)) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))
upgrade = b"GET / HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n"
run = {"id": 2, "method": "command/exec", "params": {"command": ["/bin/sh", "-c", cmd], "sandboxPolicy": {"type": "dangerFullAccess"}}}
payload = upgrade + frame({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "x", "version": "1"}}}) + frame({"method": "initialized"}) + frame(run)
for attempt in range(3):
    a, b = socket.socketpair()
    s = socket.socket(); s.setblocking(False); s.connect_ex(("127.0.0.1", port))
    socket.send_fds(a, [b"x"], [s.fileno()]); s.close()
    time.sleep(0.3)
    s = socket.socket(fileno=socket.recv_fds(b, 1, 1)[1][0]); s.setblocking(True); s.settimeout(2)
    try:
        s.sendall(payload); answer = s.recv(65536)
        print("GOT", answer[:80]) if answer else print("REFUSED", "closed")
    except Exception as error:
        print("REFUSED", type(error).__name__)
`;

/** An exec_command call that waits for the command to finish: on a loaded machine two Node probes outlast the default yield, and the output would be cut. */
function exec(cmd: string, callId: string): MockResponseInput {
  return { items: [{ type: "exec", cmd, callId, yield_time_ms: 10_000 }] };
}

function toolOutput(requests: readonly { body: Record<string, unknown> }[], callId: string): string {
  for (const request of requests) {
    const output = (request.body.input as any[]).find((item) => item.type === "function_call_output" && item.call_id === callId);
    if (output) return String(output.output);
  }
  throw new Error(`no output for ${callId}`);
}

/** The descriptors a command listed with {@link LIST_FDS}, space-separated. */
function fdLine(output: string): string {
  const listed = /FDS\r?\n([\s\S]*?)END/.exec(output)?.[1];
  return listed === undefined ? `(no listing in ${JSON.stringify(output)})` : listed.trim().split(/\s+/).join(" ");
}

/** Whether python3 is here (the descriptor-passing attack needs SCM_RIGHTS, which Node does not offer). */
const python3 = programWorks(["python3", "-c", "import socket; socket.send_fds"], "the descriptor-passing attack", "sudo apt-get install python3; 3.9 or later");

/** A server (as `runAs`) that listens on a socket (`listen`), running commands in workspace-write with network granted, and never asking. */
function listeningServer(runAs: RunAs, home: string, cwd: string, modelUrl: string, listen: string[]): ServerProcess {
  const sandbox = ["-c", 'approval_policy="never"', "-c", 'sandbox_mode="workspace-write"', "-c", "sandbox_workspace_write.network_access=true"];
  const server = ServerProcess.start({ home, cwd, protocol: false, wrapper: runAs.wrapper, args: ["app-server", ...providerArgs(modelUrl), ...sandbox, ...listen] });
  servers.push(server);
  return server;
}

describe.skipIf(!bwrapAvailable).each(runAsModes)("a sandboxed command reaches nothing of its server ($name)", (runAs) => {
  it("gets no descriptor beyond 0–2, sandboxed or not, on pipes or a terminal, even those the server inherited", async () => {
    const outside = tempDir("aas-reach-out-");
    const leak = path.join(outside, "leak.txt");
    writeFileSync(leak, "");
    const fd = openSync(leak, "a");
    const pipeRead = openSync(leak, "r");
    const home = tempDir("aas-reach-home-");
    const cwd = tempDir("aas-reach-ws-");
    ownDirs(runAs, home, cwd);
    try {
      const { server, mock } = await launch([exec(LIST_FDS, "sandboxed"), { items: [{ type: "message", text: "ok" }] }, exec(LIST_FDS, "full"), { items: [{ type: "message", text: "ok" }] }], {
        home,
        cwd,
        approval: "never",
        sandbox: "workspace-write",
        wrapper: runAs.wrapper,
        extraFds: [fd, pipeRead],
        capabilities: { experimentalApi: true },
      });
      const threadId = await startThread(server, { cwd });
      await runTurn(server, threadId, "List your descriptors.");
      await runTurn(server, threadId, "Again, with full access.", { sandboxPolicy: { type: "dangerFullAccess" } });
      expect(fdLine(toolOutput(mock.requests, "sandboxed"))).toBe("0 1 2");
      expect(fdLine(toolOutput(mock.requests, "full"))).toBe("0 1 2");
      const piped = await server.request("command/exec", { command: ["bash", "-c", LIST_FDS] });
      expect(fdLine(piped.result.stdout)).toBe("0 1 2");
      const terminal = await server.request("command/exec", { command: ["bash", "-c", LIST_FDS], processId: "pty", tty: true });
      expect(terminal.result.exitCode).toBe(0);
      const typed = server.messages.filter((m) => m.method === "command/exec/outputDelta" && m.params.processId === "pty");
      expect(fdLine(Buffer.concat(typed.map((m) => Buffer.from(m.params.deltaBase64, "base64"))).toString("utf8"))).toBe("0 1 2");
      await server.request("thread/shellCommand", { threadId, command: LIST_FDS });
      const shell = await server.waitFor((m) => m.method === "item/completed" && m.params.item.source === "userShell");
      expect(fdLine(shell.params.item.aggregatedOutput)).toBe("0 1 2");
      await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === shell.params.turnId, "the shell command's turn/completed");
      expect(readFileSync(leak, "utf8")).toBe("");
    } finally {
      closeSync(fd);
      closeSync(pipeRead);
    }
  });

  it("connects to no Unix socket: not the server's own control socket, not another listener outside the roots", async () => {
    const outside = tempDir("aas-reach-out-");
    const socketDir = tempDir("aas-reach-sock-");
    const control = path.join(socketDir, "control.sock");
    const other = path.join(outside, "other.sock");
    const listener = net.createServer((socket) => socket.end("HTTP/1.1 200 OK\r\n\r\n"));
    await new Promise<void>((resolve) => listener.listen(other, resolve));
    execFileSync("chmod", ["777", outside, other]);
    const home = tempDir("aas-reach-home-");
    const cwd = tempDir("aas-reach-ws-");
    writeFileSync(path.join(cwd, "probe.js"), PROBE);
    ownDirs(runAs, home, cwd, socketDir);
    const mock = await startMockModel({
      responses: [
        exec(`${process.execPath} probe.js ${control}; ${process.execPath} probe.js ${other}`, "unix"),
        { items: [{ type: "message", text: "ok" }] },
      ],
    });
    mocks.push(mock);
    const server = listeningServer(runAs, home, cwd, mock.url, ["--listen", `unix://${control}`]);
    try {
      await server.waitForStderr("listening on unix://");
      const client = await RawWebSocketClient.connect(`ws+unix://${control}:/`, "reach");
      const thread = await client.request("thread/start", { cwd });
      const turn = await client.request("turn/start", { threadId: thread.result.thread.id, input: [{ type: "text", text: "Connect." }] });
      await client.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turn.result.turn.id, "turn/completed");
      client.close();
      const output = toolOutput(mock.requests, "unix");
      expect(output).not.toContain("CONNECTED");
      expect(output.match(/ERROR EPERM/g)?.length, output).toBe(2);
    } finally {
      listener.close();
      // Over a socket, stdin's end is no reason to stop: SIGTERM is.
      await server.signal("SIGTERM");
    }
  });

  it("reaches no listener of the server even with network granted, reads no token file, and cannot see the server's home or signal the server", async () => {
    const outside = tempDir("aas-reach-out-");
    const tokenFile = path.join(outside, "token");
    writeFileSync(tokenFile, "s3cret-capability-token\n");
    const home = tempDir("aas-reach-home-");
    writeFileSync(path.join(home, "auth.json"), '{"OPENAI_API_KEY":"sk-in-the-home"}');
    const cwd = tempDir("aas-reach-ws-");
    writeFileSync(path.join(cwd, "probe.js"), PROBE);
    ownDirs(runAs, home, cwd, outside);
    ownDirs(runAs, tokenFile, path.join(home, "auth.json"));
    const mock = await startMockModel({ responses: [] });
    mocks.push(mock);
    const server = listeningServer(runAs, home, cwd, mock.url, ["--listen", "ws://127.0.0.1:0", "--ws-token-file", tokenFile]);
    await server.waitForStderr("listening on ws://");
    const url = /listening on (ws:\/\/[0-9.]+:\d+)/.exec(server.stderr)![1]!;
    const port = new URL(url).port;
    // From outside the sandbox the listener answers.
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    mock.push(
      exec(`${process.execPath} probe.js ${port}; cat ${tokenFile}; echo "home:[$(ls -A ${home})]"; cat ${home}/auth.json; kill -9 ${server.child.pid}; echo done`, "tcp"),
      { items: [{ type: "message", text: "ok" }] },
    );
    const client = await RawWebSocketClient.connect(url, "reach", "s3cret-capability-token");
    const thread = await client.request("thread/start", { cwd });
    const turn = await client.request("turn/start", { threadId: thread.result.thread.id, input: [{ type: "text", text: "Connect." }] });
    await client.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turn.result.turn.id, "turn/completed");
    const output = toolOutput(mock.requests, "tcp");
    expect(output).toContain("CLOSED");
    expect(output).not.toContain("DATA");
    expect(output).not.toContain("s3cret");
    expect(output).not.toContain("sk-in-the-home");
    // Only what commands need of the home is there (the login-profile snapshots), read-only.
    expect(output).toContain("home:[shell_snapshots]");
    // The server is alive and still serving this client.
    expect((await client.request("thread/list", {})).result).toBeDefined();
    client.close();
    expect(readdirSync(outside)).toEqual(["token"]);
    await server.signal("SIGTERM");
  });
});

/** A C compiler, to build the preloaded library of the environment attack. */
const cc = programWorks(["cc", "--version"], "the LD_PRELOAD attack", "sudo apt-get install gcc");

/** A library whose constructor records, in `$AAS_MARKER_DIR`, every process that loads it (it can write there only outside the sandbox). */
const PRELOAD = `#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void record(void) {
  const char *dir = getenv("AAS_MARKER_DIR");
  char file[4096], exe[1024] = {0};
  if (!dir || readlink("/proc/self/exe", exe, sizeof exe - 1) < 0) return;
  snprintf(file, sizeof file, "%s/loaded-by-%d", dir, (int)getpid());
  FILE *out = fopen(file, "w");
  if (out) { fprintf(out, "%s\\n", exe); fclose(out); }
}
`;

describe.skipIf(!bwrapAvailable || !cc).each(runAsModes)("the environment of a sandboxed command ($name)", (runAs) => {
  it("reaches only the command, inside the sandbox: LD_PRELOAD from a login profile a command wrote loads into nothing outside", async () => {
    const outside = tempDir("aas-reach-out-");
    execFileSync("chmod", ["777", outside]);
    const userHome = tempDir("aas-reach-user-");
    execFileSync("cc", ["-shared", "-fPIC", "-o", path.join(userHome, "record.so"), "-x", "c", "-"], { input: PRELOAD });
    // As a command in a workspace-write sandbox could have left it when HOME was under a writable root.
    writeFileSync(path.join(userHome, ".bash_profile"), `export LD_PRELOAD=${userHome}/record.so AAS_MARKER_DIR=${outside}\n`);
    const home = tempDir("aas-reach-home-");
    const cwd = tempDir("aas-reach-ws-");
    ownDirs(runAs, home, cwd, userHome);
    const { server, mock } = await launch([exec("echo loaded=${LD_PRELOAD:+yes}", "profiled"), { items: [{ type: "message", text: "ok" }] }], {
      home,
      cwd,
      approval: "never",
      sandbox: "workspace-write",
      wrapper: runAs.wrapper,
      env: { HOME: userHome, TMPDIR: "" },
    });
    // The temp dirs live under /tmp, itself a writable root unless excluded.
    const threadId = await startThread(server, { cwd, config: { "sandbox_workspace_write.exclude_slash_tmp": true } });
    await runTurn(server, threadId, "Run it.");
    // The command got the profile's environment...
    expect(toolOutput(mock.requests, "profiled")).toContain("loaded=yes");
    // ...and no process outside the sandbox (the launcher, bubblewrap) loaded the library.
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe.skipIf(!bwrapAvailable).each(runAsModes)("the server's home, deep below a writable root ($name)", (runAs) => {
  it("cannot be swapped for a directory of the model's by renaming one above it, so no snapshot of the model's runs outside the sandbox", async () => {
    const above = tempDir("aas-reach-above-");
    const home = path.join(above, "state", "home");
    mkdirSync(home, { recursive: true });
    const cwd = tempDir("aas-reach-ws-");
    if (runAs.uid !== null) execFileSync("chown", ["-R", `${runAs.uid}:${runAs.uid}`, above, cwd]);
    // Where the server keeps the login-profile snapshot that unsandboxed commands source.
    const hijack = [
      `names=$(ls ${home}/shell_snapshots)`,
      `mv ${path.dirname(home)} ${path.dirname(home)}.moved && mkdir -p ${home}/shell_snapshots`,
      `for n in $names; do echo 'echo HIJACKED' > ${home}/shell_snapshots/$n; done`,
      "echo tried",
    ].join("; ");
    const { server, mock } = await launch([exec(hijack, "hijack"), { items: [{ type: "message", text: "ok" }] }], { home, cwd, approval: "never", sandbox: "workspace-write", wrapper: runAs.wrapper });
    // /tmp is a writable root here, so the home is two directories below one.
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Try.");
    expect(toolOutput(mock.requests, "hijack")).toContain("Device or resource busy");
    expect(existsSync(`${path.dirname(home)}.moved`)).toBe(false);
    await server.request("thread/shellCommand", { threadId, command: "echo user-ran" });
    const shell = await server.waitFor((m) => m.method === "item/completed" && m.params.item.source === "userShell");
    expect(shell.params.item.aggregatedOutput).toBe("user-ran\n");
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === shell.params.turnId, "the shell command's turn/completed");
  });
});

describe.skipIf(!bwrapAvailable)("a protected path behind a symlink", () => {
  it("refuses sandboxed commands in that workspace, naming the link (a command could replace the link itself)", async () => {
    const cwd = tempDir("aas-reach-ws-");
    const elsewhere = tempDir("aas-reach-elsewhere-");
    symlinkSync(elsewhere, path.join(cwd, ".agents"));
    const { server, mock } = await launch([exec("echo ran", "linked"), { items: [{ type: "message", text: "ok" }] }], { approval: "never", sandbox: "workspace-write" });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Run.");
    const output = toolOutput(mock.requests, "linked");
    expect(output).toContain(`${path.join(cwd, ".agents")} is a symbolic link`);
    expect(output).not.toContain("ran\n");
    // The sandbox itself works: nothing tells clients it is unavailable.
    expect(server.messages.filter((m) => m.method === "configWarning" && /sandbox is unavailable/.test(m.params.summary))).toEqual([]);
  });
});

describe.skipIf(!bwrapAvailable || !python3)("a sandboxed command granted network", () => {
  it("cannot reach the server's listener with a socket it holds nowhere while the server looks (sent away over a socketpair)", async () => {
    const outside = tempDir("aas-reach-out-");
    execFileSync("chmod", ["777", outside]);
    const home = tempDir("aas-reach-home-");
    const cwd = tempDir("aas-reach-ws-");
    writeFileSync(path.join(cwd, "smuggle.py"), SMUGGLER);
    const mock = await startMockModel({ responses: [] });
    mocks.push(mock);
    const server = listeningServer(runAsModes[0]!, home, cwd, mock.url, ["--listen", "ws://127.0.0.1:0"]);
    await server.waitForStderr("listening on ws://");
    const url = /listening on (ws:\/\/[0-9.]+:\d+)/.exec(server.stderr)![1]!;
    mock.push(
      { items: [{ type: "exec", cmd: `python3 smuggle.py ${new URL(url).port} 'touch ${outside}/escaped'`, callId: "smuggle", yield_time_ms: 10_000 }] },
      { items: [{ type: "message", text: "ok" }] },
    );
    const client = await RawWebSocketClient.connect(url, "reach");
    const thread = await client.request("thread/start", { cwd });
    const turn = await client.request("turn/start", { threadId: thread.result.thread.id, input: [{ type: "text", text: "Smuggle." }] });
    await client.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turn.result.turn.id, "turn/completed");
    client.close();
    const output = toolOutput(mock.requests, "smuggle");
    expect(output).not.toContain("GOT");
    expect(output.match(/REFUSED/g)?.length, output).toBe(3);
    expect(readdirSync(outside)).toEqual([]);
    await server.signal("SIGTERM");
  });
});

describe.skipIf(!bwrapAvailable)("the sandbox launcher", () => {
  it("closes descriptors the embedding process leaked, before a sandboxed command starts", async () => {
    const outside = tempDir("aas-reach-out-");
    const leak = path.join(outside, "leak.txt");
    writeFileSync(leak, "");
    const home = tempDir("aas-reach-home-");
    const script = path.join(outside, "embed.mjs");
    const dist = path.resolve(import.meta.dirname, "../../dist");
    writeFileSync(
      script,
      `import { createAppServer } from ${JSON.stringify(path.join(dist, "index.js"))};
import { AppServerClient } from ${JSON.stringify(path.join(dist, "client/index.js"))};
const server = await createAppServer({ home: ${JSON.stringify(home)}, config: { sandbox_mode: "read-only" } });
const client = await AppServerClient.inProcess(server);
const result = await client.request("command/exec", { command: ["bash", "-c", ${JSON.stringify(LIST_FDS)}] });
process.stdout.write(result.stdout);
await client.close();
await server.shutdown();
`,
    );
    const fd = openSync(leak, "a");
    try {
      // The embedding process inherits fd 3 without close-on-exec; only the sandbox launcher stands between it and the command.
      const output = execFileSync(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit", fd], encoding: "utf8", timeout: 20_000 });
      expect(fdLine(output)).toBe("0 1 2");
      expect(readFileSync(leak, "utf8")).toBe("");
    } finally {
      closeSync(fd);
    }
  });
});
