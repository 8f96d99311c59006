import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AppServerClient } from "../client/appServerClient.js";

const CLI = fileURLToPath(new URL("../cli.cjs", import.meta.url));

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

/**
 * Whether the demo writes ANSI colours: FORCE_COLOR decides when set (`0` or `false` turns them off,
 * anything else on), else none under NO_COLOR (set and not empty, as no-color.org says) or
 * TERM=dumb, else only to a terminal: a pipe or a file gets plain text.
 */
export function colourWanted(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !["0", "false"].includes(force.trim().toLowerCase());
  if (env.NO_COLOR || env.TERM === "dumb") return false;
  return isTTY;
}

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
  const out = (text: string) => process.stdout.write(text);
  const dim = colourWanted(process.env, process.stdout.isTTY === true) ? (text: string) => `\x1b[2m${text}\x1b[0m` : (text: string) => text;
  const client = await AppServerClient.spawn({
    command: [process.execPath, CLI, ...args],
    cwd: workspace,
    env,
    stderr: "inherit", // the server's warnings (LOG_LEVEL=warn) belong in the demo's output
    clientInfo: { name: "demo", title: "agent-app-server demo", version: "1.0.0" },
  });
  client.onCommandApproval((request) => {
    out(`\n  ? approve \`${request.command}\` — ${request.reason ?? "no reason given"}  → accepted\n`);
    return "accept";
  });
  client.onFileChangeApproval(() => {
    out(`\n  ? approve the file change → accepted\n`);
    return "accept";
  });
  let streaming = false;
  try {
    const { thread } = await client.startThread({ cwd: workspace });
    const prompt = "Create greeting.txt saying hello, and mention it in the README.";
    out(`user › ${prompt}\n`);
    let status = "failed";
    for await (const event of client.runTurn(thread.id, prompt)) {
      switch (event.method) {
        case "item/reasoning/summaryTextDelta":
          out(`${dim(`(thinking) ${event.params.delta}`)}\n`);
          break;
        case "item/agentMessage/delta":
          if (!streaming) out("\nagent › ");
          streaming = true;
          out(event.params.delta);
          break;
        case "item/completed": {
          const item = event.params.item;
          if (item.type === "agentMessage") {
            streaming = false;
            out("\n");
          } else if (item.type === "commandExecution") {
            // A command still running when the turn ended (a slow login profile, say) goes on in the background: not a failure.
            const ending = item.status === "inProgress" ? "still running when the turn ended; it goes on as a background terminal" : `exit ${item.exitCode}, ${item.status}`;
            out(`  $ ${item.command}\n  ${(item.aggregatedOutput ?? "").trimEnd().split("\n").join("\n  ")}\n  (${ending})\n`);
          } else if (item.type === "fileChange") {
            for (const change of item.changes) out(`  ✎ ${path.relative(workspace, change.path)} (${change.kind.type})\n${change.diff.trimEnd().replace(/^/gm, "    ")}\n`);
          }
          break;
        }
        case "thread/tokenUsage/updated": {
          const { total, last } = event.params.tokenUsage;
          out(`${dim(`  tokens: ${total.totalTokens} total (${last.inputTokens} in, ${last.outputTokens} out last)`)}\n`);
          break;
        }
        case "turn/completed":
          status = event.params.turn.status === "failed" ? `failed: ${event.params.turn.error?.message}` : event.params.turn.status;
          break;
      }
    }
    out(`\nturn ${status}\n`);
    return status === "completed" ? 0 : 1;
  } finally {
    await client.close();
    rmSync(root, { recursive: true, force: true });
  }
}
