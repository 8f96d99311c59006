import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_PATH, ServerProcess } from "../support/serverProcess.js";

/** The colour switches of the environment the tests run in, unset: the demo decides by its output alone. */
const NO_COLOUR_ENV = { FORCE_COLOR: undefined, NO_COLOR: undefined, TERM: undefined };

describe("command line", () => {
  it("prints the version", async () => {
    const server = ServerProcess.start({ args: ["--version"], protocol: false });
    expect((await server.waitExit()).code).toBe(0);
    const pkg = JSON.parse(readFileSync(path.resolve("package.json"), "utf8"));
    expect(server.stdoutLines).toEqual([`agent-app-server ${pkg.version}`]);
  });

  it("prints help", async () => {
    const server = ServerProcess.start({ args: ["--help"], protocol: false });
    expect((await server.waitExit()).code).toBe(0);
    expect(server.stdoutLines[0]).toContain("agent-app-server: a Codex-compatible app-server");
    expect(server.stdoutLines.join("\n")).toContain("generate-json-schema --out DIR");
  });

  it("serves stdio with no arguments and with app-server --listen stdio:// --stdio", async () => {
    for (const args of [[], ["app-server", "--listen", "stdio://", "--stdio"], ["app-server", "--listen=stdio://"]]) {
      const server = ServerProcess.start({ args });
      expect((await server.initialize()).codexHome).toBe(server.home);
      expect((await server.closeStdin()).code).toBe(0);
    }
  });

  it("npm run --silent serve writes protocol only on stdout; npm run serve into a pipe refuses in one line instead of serving after npm's banner", async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), "aas-serve-"));
    // The child npm decides by its own flags, not by how this test run was started.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")));
    const npmServe = (flags: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn("npm", ["run", ...flags, "serve"], { cwd: path.dirname(path.dirname(CLI_PATH)), env: { ...env, AGENT_APP_SERVER_HOME: home, LOG_LEVEL: "warn" } });
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(`${JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: "t", version: "1" } } })}\n`);
      });
    try {
      const silent = await npmServe(["--silent"]);
      expect(silent.code, silent.stderr).toBe(0);
      const lines = silent.stdout.split("\n").filter(Boolean);
      expect(lines.map((line) => JSON.parse(line).id)).toEqual([1]);
      const loud = await npmServe([]);
      expect(loud.code).not.toBe(0);
      expect(loud.stdout).toContain("> agent-app-server@");
      expect(loud.stdout).not.toContain('"result"');
      expect(loud.stderr).toContain("npm printed its banner on stdout, which carries the protocol; spawn `npm run --silent serve`");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);

  it("rejects unknown arguments and unsupported listeners with exit code 2", async () => {
    const unknown = ServerProcess.start({ args: ["app-server", "--frobnicate"] });
    expect((await unknown.waitExit()).code).toBe(2);
    expect(unknown.stderr).toContain("unknown argument: --frobnicate");
    const unix = ServerProcess.start({ args: ["app-server", "--listen", "tcp://127.0.0.1:1"] });
    expect((await unix.waitExit()).code).toBe(2);
    expect(unix.stderr).toContain("--listen tcp://127.0.0.1:1 is not supported; use stdio://, unix://, unix://PATH, ws://IP:PORT or off");
    const open = ServerProcess.start({ args: ["app-server", "--listen", "ws://0.0.0.0:0"] });
    expect((await open.waitExit()).code).toBe(2);
    expect(open.stderr).toContain("refusing to start a non-loopback WebSocket listener on 0.0.0.0 without auth");
    // The refusal and where to look, not the whole help under it.
    expect(open.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^agent-app-server: refusing/), "(agent-app-server --help lists the commands and options)"]);
  });

  it("refuses a model script it cannot use in one sentence, with no stack and nothing on stdout", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "aas-script-"));
    writeFileSync(path.join(dir, "broken.json"), "{not json");
    writeFileSync(path.join(dir, "wrong.json"), JSON.stringify({ model: [{ items: [{ type: "nonsense" }] }] }));
    try {
      for (const [file, says] of [
        [path.join(dir, "missing.json"), "cannot read the model script"],
        [path.join(dir, "broken.json"), "is not JSON"],
        [path.join(dir, "wrong.json"), "invalid model script at model[0].items[0].type"],
      ] as const) {
        const server = ServerProcess.start({ args: ["app-server", "--script", file], protocol: false });
        expect((await server.waitExit()).code, file).toBe(1);
        expect(server.stdoutLines).toEqual([]);
        const lines = server.stderr.trim().split("\n");
        expect(lines, file).toHaveLength(1);
        expect(lines[0]).toMatch(new RegExp(`^agent-app-server: .*${says.replaceAll(/[.[\]]/g, "\\$&")}`));
        expect(lines[0]).not.toMatch(/\n\s+at |\.js:\d+/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("serves turns from --script even when config.toml names another provider; an explicit -c model_provider still wins", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "aas-script-"));
    const script = path.join(dir, "script.json");
    writeFileSync(script, JSON.stringify({ model: [{ items: [{ type: "message", text: "From the script." }] }] }));
    const turnOf = async (extra: string[]) => {
      const home = mkdtempSync(path.join(dir, "home-"));
      writeFileSync(path.join(home, "config.toml"), 'model_provider = "ollama"\n');
      const server = ServerProcess.start({ home, args: ["app-server", "--script", script, ...extra], env: { OPENAI_API_KEY: "" } });
      try {
        await server.initialize();
        const started = await server.request("thread/start", { cwd: dir });
        const turn = await server.request("turn/start", { threadId: started.result.thread.id, input: [{ type: "text", text: "Hi" }] });
        const done = await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turn.result.turn.id, "turn/completed");
        return { provider: started.result.thread.modelProvider, status: done.params.turn.status, texts: server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "agentMessage").map((m) => m.params.item.text) };
      } finally {
        await server.stop();
      }
    };
    try {
      expect(await turnOf([])).toEqual({ provider: "scripted", status: "completed", texts: ["From the script."] });
      // The flag names a provider that has no server: the turn fails, the script is not used.
      expect(await turnOf(["-c", 'model_provider="ollama"', "-c", 'model_providers.ollama.base_url="http://127.0.0.1:9/v1"'])).toMatchObject({ provider: "ollama", status: "failed", texts: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writes JSON Schema files with generate-json-schema --out", async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), "aas-schema-"));
    try {
      const server = ServerProcess.start({ args: ["generate-json-schema", "--out", out] });
      expect((await server.waitExit()).code).toBe(0);
      const files = readdirSync(out);
      expect(files).toContain("InitializeParams.json");
      expect(files).toContain("ItemStartedNotification.json");
      const schema = JSON.parse(readFileSync(path.join(out, "InitializeResponse.json"), "utf8"));
      expect(schema.required).toEqual(["userAgent", "codexHome", "platformFamily", "platformOs"]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("replays a scenario: prints it, checks it against its golden file (saying how to make a missing one), shows the step and a word diff on a mismatch", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "aas-replay-"));
    try {
      const scenario = path.join(dir, "hello.scenario.json");
      writeFileSync(scenario, readFileSync(path.resolve("fixtures/01-streamed-answer.scenario.json")));
      const missing = ServerProcess.start({ args: ["replay", scenario, "--check"], protocol: false });
      expect((await missing.waitExit(undefined, 20_000)).code).toBe(1);
      expect(missing.stderr).toContain(`no golden file ${path.join(dir, "hello.jsonl")}; create it with: agent-app-server replay ${scenario} --update`);
      const printed = ServerProcess.start({ args: ["replay", scenario], protocol: false });
      expect((await printed.waitExit(undefined, 20_000)).code).toBe(0);
      expect(printed.stdoutLines.filter(Boolean).map((line) => JSON.parse(line).dir)).toContain("s2c");
      writeFileSync(path.join(dir, "hello.jsonl"), printed.stdoutLines.join("\n") + "\n");
      const ok = ServerProcess.start({ args: ["replay", scenario, "--check"], protocol: false });
      expect((await ok.waitExit(undefined, 20_000)).code).toBe(0);
      writeFileSync(path.join(dir, "hello.jsonl"), printed.stdoutLines.join("\n").replace("streamed ", "STREAMED "));
      const bad = ServerProcess.start({ args: ["replay", scenario, "--check"], protocol: false });
      expect((await bad.waitExit(undefined, 20_000)).code).toBe(1);
      expect(bad.stderr).toContain("first difference at line");
      expect(bad.stderr).toContain("STREAMED ");
      expect(bad.stderr).toMatch(/FAIL .*hello\.scenario\.json, at steps\[\d+\] \((request turn\/start|waitFor turn\/completed)\)/);
      expect(bad.stderr).toMatch(/words: .*\[-STREAMED-\]\{\+streamed\+\}/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs the demo with the embedded scripted model: no key, no network, exit 0, no colours into a pipe", async () => {
    const demo = ServerProcess.start({ args: ["demo"], protocol: false, env: { OPENAI_API_KEY: "", ...NO_COLOUR_ENV } });
    expect((await demo.waitExit(undefined, 20_000)).code).toBe(0);
    const text = demo.stdoutLines.join("\n");
    expect(text).toContain("agent › I'll create greeting.txt first.");
    expect(text).toContain("→ accepted");
    expect(text).toContain("+A project that says hello (see greeting.txt).");
    expect(text).toMatch(/tokens: \d+ total/);
    expect(text).toContain("turn completed");
    expect(text).not.toContain("\x1b[");
  });

  it("colours the demo into a pipe with FORCE_COLOR=1, and not with FORCE_COLOR=0", async () => {
    const forced = ServerProcess.start({ args: ["demo"], protocol: false, env: { OPENAI_API_KEY: "", ...NO_COLOUR_ENV, FORCE_COLOR: "1" } });
    expect((await forced.waitExit(undefined, 20_000)).code).toBe(0);
    expect(forced.stdoutLines.join("\n")).toContain("\x1b[2m  tokens: ");
    const off = ServerProcess.start({ args: ["demo"], protocol: false, env: { OPENAI_API_KEY: "", ...NO_COLOUR_ENV, FORCE_COLOR: "0" } });
    expect((await off.waitExit(undefined, 20_000)).code).toBe(0);
    expect(off.stdoutLines.join("\n")).not.toContain("\x1b[");
  });

  it("colours the demo on a terminal, and not on a terminal with NO_COLOR set", async () => {
    const { spawn } = await import("@lydell/node-pty");
    const onTerminal = (env: NodeJS.ProcessEnv) =>
      new Promise<{ code: number; output: string }>((resolve) => {
        const home = mkdtempSync(path.join(os.tmpdir(), "aas-demo-tty-"));
        const merged = { ...process.env, HOME: home, OPENAI_API_KEY: "", ...NO_COLOUR_ENV, TERM: "xterm-256color", ...env };
        const pty = spawn(process.execPath, [CLI_PATH, "demo"], {
          cols: 200,
          rows: 50,
          env: Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined)),
        });
        let output = "";
        pty.onData((data) => (output += data));
        pty.onExit(({ exitCode }) => {
          rmSync(home, { recursive: true, force: true });
          resolve({ code: exitCode, output });
        });
      });
    const coloured = await onTerminal({});
    expect(coloured.code).toBe(0);
    expect(coloured.output).toContain("\x1b[2m  tokens: ");
    const plain = await onTerminal({ NO_COLOR: "1" });
    expect(plain.code).toBe(0);
    expect(plain.output).toContain("turn completed");
    expect(plain.output).not.toContain("\x1b[");
  }, 45_000);

  it("writes TypeScript declarations with generate-ts that type-check real messages", async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), "aas-ts-"));
    try {
      const generated = ServerProcess.start({ args: ["generate-ts", "--out", out], protocol: false });
      expect((await generated.waitExit()).code).toBe(0);
      writeFileSync(
        path.join(out, "use.ts"),
        [
          'import type { ClientRequests, ServerNotifications, TurnStartParams } from "./protocol.js";',
          'export const params: TurnStartParams = { threadId: "t", input: [{ type: "text", text: "hi" }, { type: "localImage", path: "/a.png" }] };',
          'export const id: ClientRequests["thread/start"]["result"]["thread"]["id"] = "x";',
          'export const delta: ServerNotifications["item/agentMessage/delta"] = { threadId: "t", turnId: "u", itemId: "i", delta: "d" };',
          "// @ts-expect-error a wrong field type must not compile",
          'export const wrong: TurnStartParams = { threadId: 1, input: [] };',
        ].join("\n"),
      );
      const { execFileSync } = await import("node:child_process");
      const tsc = path.resolve("node_modules/typescript/bin/tsc");
      execFileSync(process.execPath, [tsc, "--noEmit", "--strict", "--ignoreConfig", "--module", "nodenext", "--moduleResolution", "nodenext", "use.ts", "protocol.d.ts"], { cwd: out });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
