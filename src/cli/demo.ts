import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));

const PATCH = `*** Begin Patch
*** Update File: README.md
@@
 # Demo project
-A project.
+A project that says hello (see greeting.txt).
*** End Patch`;

/** The embedded model script: think, run a command (asks for approval), patch a file, answer. */
const DEMO_SCRIPT = [
  {
    items: [
      { type: "reasoning", summary: ["The user wants a greeting file and the README to mention it."] },
      { type: "message", deltas: ["I'll create ", "greeting.txt ", "first."] },
      {
        type: "exec",
        cmd: "echo 'Hello from the agent' > greeting.txt && cat greeting.txt",
        callId: "call_demo_cmd",
        sandbox_permissions: "require_escalated",
        justification: "Write greeting.txt in the project",
      },
    ],
    usage: { input_tokens: 812, output_tokens: 64 },
  },
  { items: [{ type: "apply_patch", patch: PATCH, callId: "call_demo_patch" }], usage: { input_tokens: 901, output_tokens: 48 } },
  {
    items: [{ type: "message", deltas: ["Done: ", "greeting.txt says hello, ", "and the README points to it."] }],
    usage: { input_tokens: 960, output_tokens: 22 },
  },
];

type Message = Record<string, any>;

/**
 * `npm start`: a demo client drives the server through one turn and prints it as a conversation:
 * streamed text, a command that asks for approval (accepted), a file change with its diff, token
 * usage. By default the model is scripted (no key, no network); `--live` uses the configured one.
 */
export async function runDemo(live: boolean): Promise<number> {
  const root = mkdtempSync(path.join(os.tmpdir(), "aas-demo-"));
  const workspace = path.join(root, "project");
  const script = path.join(root, "model.json");
  writeFileSync(script, JSON.stringify(DEMO_SCRIPT));
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, "README.md"), "# Demo project\nA project.\n");
  const args = ["app-server", "-c", `approval_policy="on-request"`, "-c", `sandbox_mode="workspace-write"`];
  if (!live) args.push("--script", script, "-c", `model_provider="scripted"`, "-c", `model="demo-model"`);
  const quiet = { LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" };
  const env = live ? { ...process.env, ...quiet } : { ...process.env, ...quiet, AGENT_APP_SERVER_HOME: path.join(root, "home") };
  const child = spawn(process.execPath, [CLI, ...args], { cwd: workspace, env, stdio: ["pipe", "pipe", "inherit"] });
  const out = (text: string) => process.stdout.write(text);
  let nextId = 1;
  const pending = new Map<number, (message: Message) => void>();
  const send = (message: Message) => child.stdin.write(JSON.stringify(message) + "\n");
  const request = (method: string, params: unknown) =>
    new Promise<Message>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      send({ id, method, params });
    });
  let finished!: (status: string) => void;
  const done = new Promise<string>((resolve) => (finished = resolve));
  let streaming = false;
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as Message;
    if (message.id !== undefined && !message.method) return pending.get(message.id)?.(message);
    const params = message.params ?? {};
    switch (message.method) {
      case "item/reasoning/summaryTextDelta":
        out(`\x1b[2m(thinking) ${params.delta}\x1b[0m\n`);
        break;
      case "item/agentMessage/delta":
        if (!streaming) out("\nagent › ");
        streaming = true;
        out(params.delta);
        break;
      case "item/completed":
        if (params.item.type === "agentMessage") {
          streaming = false;
          out("\n");
        } else if (params.item.type === "commandExecution") {
          out(`  $ ${params.item.command}\n  ${(params.item.aggregatedOutput ?? "").trimEnd().split("\n").join("\n  ")}\n  (exit ${params.item.exitCode}, ${params.item.status})\n`);
        } else if (params.item.type === "fileChange") {
          for (const change of params.item.changes) out(`  ✎ ${path.relative(workspace, change.path)} (${change.kind.type})\n${change.diff.trimEnd().replace(/^/gm, "    ")}\n`);
        }
        break;
      case "item/commandExecution/requestApproval":
        out(`\n  ? approve \`${params.command}\` — ${params.reason ?? "no reason given"}  → accepted\n`);
        send({ id: message.id, result: { decision: "accept" } });
        break;
      case "item/fileChange/requestApproval":
        out(`\n  ? approve the file change → accepted\n`);
        send({ id: message.id, result: { decision: "accept" } });
        break;
      case "thread/tokenUsage/updated":
        out(`\x1b[2m  tokens: ${params.tokenUsage.total.totalTokens} total (${params.tokenUsage.last.inputTokens} in, ${params.tokenUsage.last.outputTokens} out last)\x1b[0m\n`);
        break;
      case "turn/completed":
        finished(params.turn.status === "failed" ? `failed: ${params.turn.error?.message}` : params.turn.status);
        break;
    }
  });
  try {
    await request("initialize", { clientInfo: { name: "demo", title: "agent-app-server demo", version: "1.0.0" } });
    send({ method: "initialized" });
    const thread = await request("thread/start", { cwd: workspace });
    const prompt = "Create greeting.txt saying hello, and mention it in the README.";
    out(`user › ${prompt}\n`);
    await request("turn/start", { threadId: thread.result.thread.id, input: [{ type: "text", text: prompt }] });
    const status = await done;
    out(`\nturn ${status}\n`);
    return status === "completed" ? 0 : 1;
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.on("exit", resolve));
    rmSync(root, { recursive: true, force: true });
  }
}
