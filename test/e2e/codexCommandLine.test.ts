import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RawWebSocketClient } from "../support/rawWebSocket.js";
import { CLI_PATH, ServerProcess, WAIT_MS } from "../support/serverProcess.js";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "aas-cli-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Leaves a socket file nothing listens on: a process binds it and is killed with SIGKILL. */
async function staleSocket(socketPath: string): Promise<void> {
  const child = spawn(process.execPath, ["-e", "require('net').createServer().listen(process.argv[1], () => console.log('ready'))", socketPath], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the socket holder did not start")), WAIT_MS);
    child.stdout.once("data", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

/** Starts a Unix-socket server and waits for its listening line. */
async function unixServer(args: string[], home?: string): Promise<ServerProcess> {
  const server = ServerProcess.start({ args: ["app-server", ...args], home });
  cleanups.push(() => server.signal("SIGTERM"));
  await server.waitForStderr("listening on unix://");
  return server;
}

describe("Codex's command-line grammar", () => {
  it("serves with global flags before app-server, as `codex --config k=v app-server --listen stdio://`", async () => {
    const forms = [
      ["--config", 'model="before"', "--config", "model_reasoning_effort=\"high\"", "app-server", "--listen", "stdio://"],
      ["-c", 'model="before"', "--enable", "shell_snapshot", "app-server", "-c", "sandbox_mode=\"workspace-write\"", "--stdio"],
      ["-m", "o3", "-s", "danger-full-access", "--no-alt-screen", "-c", 'model="before"', "app-server", "--analytics-default-enabled", "--startup-client-info", '{"name":"x","version":"1"}'],
    ];
    for (const args of forms) {
      const server = ServerProcess.start({ args });
      await server.initialize();
      const started = await server.request("thread/start", {});
      expect(started.result.model, args.join(" ")).toBe("before");
      // Codex's interactive-UI flags (-m, -s) do not reach the app-server, in Codex either.
      expect(started.result.sandbox.type).not.toBe("dangerFullAccess");
      expect((await server.closeStdin()).code).toBe(0);
      if (args.includes("--analytics-default-enabled")) {
        expect(server.stderr).toContain("ignoring --analytics-default-enabled: this server collects no analytics");
        expect(server.stderr).toContain("ignoring -m: configures Codex's interactive UI");
      }
    }
  });

  it("applies --enable/--disable as features.X and refuses an unknown feature", async () => {
    const server = ServerProcess.start({ args: ["--disable", "shell_snapshot", "app-server"] });
    await server.initialize();
    const read = await server.request("config/read", {});
    expect(read.result.config.features).toEqual({ shell_snapshot: false });
    await server.closeStdin();
    const bad = ServerProcess.start({ args: ["app-server", "--enable", "no_such_feature"] });
    expect((await bad.waitExit()).code).toBe(2);
    expect(bad.stderr).toContain("unknown feature flag: no_such_feature");
  });

  it("generates schemas under app-server, with Codex's flags, and refuses --strict-config there", async () => {
    const out = tempDir();
    const server = ServerProcess.start({ args: ["-c", "x=1", "app-server", "generate-json-schema", "--experimental", "-o", out], protocol: false });
    expect((await server.waitExit()).code).toBe(0);
    expect(readFileSync(path.join(out, "InitializeParams.json"), "utf8")).toContain("clientInfo");
    const ts = ServerProcess.start({ args: ["app-server", "generate-ts", "--out", out, "--prettier", "/bin/true"], protocol: false });
    expect((await ts.waitExit()).code).toBe(0);
    expect(readFileSync(path.join(out, "protocol.d.ts"), "utf8")).toContain("thread/start");
    const strict = ServerProcess.start({ args: ["app-server", "--strict-config", "generate-json-schema", "--out", out], protocol: false });
    expect((await strict.waitExit()).code).toBe(2);
    expect(strict.stderr).toContain("--strict-config is not supported for generate-json-schema");
  });

  it("refuses unknown flags and subcommands, and what this server does not do (proxy, daemon)", async () => {
    for (const [args, text] of [
      [["--bogus", "app-server"], "unknown argument: --bogus"],
      [["app-server", "-m", "o3"], "unknown argument: -m"],
      [["app-server", "frobnicate"], "unknown app-server subcommand: frobnicate"],
      [["app-server", "proxy", "--sock", "/x"], "app-server proxy is not supported"],
      [["app-server", "daemon", "start"], "app-server daemon is not supported"],
    ] as const) {
      const server = ServerProcess.start({ args: [...args], protocol: false });
      expect((await server.waitExit()).code, args.join(" ")).toBe(2);
      expect(server.stderr).toContain(text);
    }
  });

  it("--strict-config refuses a key neither Codex nor we know, and accepts Codex-only keys", async () => {
    const home = tempDir();
    writeFileSync(path.join(home, "config.toml"), 'notify = ["true"]\n[tui]\nanimations = false\n');
    const fine = ServerProcess.start({ args: ["app-server", "--strict-config"], home });
    await fine.initialize();
    await fine.closeStdin();
    writeFileSync(path.join(home, "config.toml"), 'model = "x"\nmodle = "typo"\n');
    const typo = ServerProcess.start({ args: ["app-server", "--strict-config"], home, protocol: false });
    expect((await typo.waitExit()).code).toBe(1);
    expect(typo.stderr).toContain("line 2: unknown configuration field `modle` (--strict-config)");
    const lenient = ServerProcess.start({ args: ["app-server"], home });
    await lenient.initialize();
    await lenient.closeStdin();
  });

  it("--print-startup-config prints the start-up configuration as JSON, or Codex's error shape", async () => {
    const home = tempDir();
    const ok = ServerProcess.start({ args: ["app-server", "--print-startup-config"], home, protocol: false });
    expect((await ok.waitExit()).code).toBe(0);
    expect(JSON.parse(ok.stdoutLines[0]!)).toEqual({ appServerVersion: "0.169.0", configRequirements: { requirements: null } });
    writeFileSync(path.join(home, "config.toml"), "bogus = 1\n");
    const bad = ServerProcess.start({ args: ["app-server", "--strict-config", "--print-startup-config"], home, protocol: false });
    expect((await bad.waitExit()).code).toBe(1);
    const error = JSON.parse(bad.stdoutLines[0]!).error;
    expect(error).toMatchObject({ code: -32600, data: { reason: "configLoad" } });
    expect(error.message).toContain("unknown configuration field `bogus`");
  });

  it("answers `codex --version` as the Codex release it speaks when installed under the name codex", async () => {
    const bin = tempDir();
    symlinkSync(CLI_PATH, path.join(bin, "codex"));
    const server = ServerProcess.start({ args: ["--version"], protocol: false, cli: path.join(bin, "codex") });
    expect((await server.waitExit()).code).toBe(0);
    expect(server.stdoutLines).toEqual(["codex-cli 0.169.0"]);
  });
});

describe("--listen unix://", () => {
  it("serves WebSocket framing on an owner-only socket, by default under the home, and removes it at exit", async () => {
    const home = tempDir();
    const server = await unixServer(["--listen", "unix://"], home);
    const socket = path.join(home, "app-server-control", "app-server-control.sock");
    expect(lstatSync(socket).isSocket()).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(socket)).mode & 0o777).toBe(0o700);
    const client = await RawWebSocketClient.connect(`ws+unix://${socket}:/`, "unix-client");
    cleanups.push(() => client.close());
    const started = await client.request("thread/start", {});
    expect(started.result.thread.id).toMatch(/-/);
    expect(client.violations).toEqual([]);
    await server.signal("SIGTERM");
    expect((await server.waitExit()).code).toBe(0);
    expect(() => lstatSync(socket)).toThrow();
  });

  it("replaces a stale socket, but never a live server's or a file that is not a socket", async () => {
    const dir = tempDir();
    const socket = path.join(dir, "s.sock");
    // A stale socket: its server killed before it could remove it.
    await staleSocket(socket);
    expect(lstatSync(socket).isSocket()).toBe(true);
    const first = await unixServer(["--listen", `unix://${socket}`]);
    const client = await RawWebSocketClient.connect(`ws+unix://${socket}:/`, "after-stale");
    cleanups.push(() => client.close());
    const second = ServerProcess.start({ args: ["app-server", "--listen", `unix://${socket}`], protocol: false });
    expect((await second.waitExit()).code).toBe(2);
    expect(second.stderr).toContain("another server is listening there");
    expect((await client.request("thread/start", {})).result.thread.id).toMatch(/-/);
    await first.signal("SIGTERM");
    await first.waitExit();
    const plain = path.join(dir, "plain");
    writeFileSync(plain, "keep me");
    const blocked = ServerProcess.start({ args: ["app-server", "--listen", `unix://${plain}`], protocol: false });
    expect((await blocked.waitExit()).code).toBe(2);
    expect(blocked.stderr).toContain("a file that is not a socket is in the way");
    expect(readFileSync(plain, "utf8")).toBe("keep me");
  });
});
