#!/usr/bin/env python3
"""The Python twin of `agent-app-server demo` (src/cli/demo.ts): spawns the built server with the
scripted model (no key, no network) in a temporary home and project, starts a thread, runs one
turn and prints it as a conversation: streamed text, a command that asks for approval (accepted
here, or declined with --decline), a file change with its diff, token usage.

    npm run build && python3 clients/python/examples/demo.py [--decline] [--live] [--verbose]

--live uses the model configured in your home's config.toml (e.g. OPENAI_API_KEY) instead.
Exits 0 when the turn completes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # clients/python, for a checkout

from agent_app_server_client import (  # noqa: E402
    AppServerClient,
    CommandApprovalRequest,
    CommandExecutionItem,
    FileChangeApprovalRequest,
    FileChangeItem,
    AgentMessageItem,
)

PATCH = """*** Begin Patch
*** Update File: README.md
@@
 # Demo project
-A project.
+A project that says hello (see greeting.txt).
*** End Patch"""

#: The model script: think, say something, run a command (asks for approval), patch a file, answer.
DEMO_SCRIPT = [
    {
        "items": [
            {"type": "reasoning", "summary": ["The user wants a greeting file and the README to mention it."]},
            {"type": "message", "deltas": ["I'll create ", "greeting.txt ", "first."]},
            {
                "type": "exec",
                "cmd": "echo 'Hello from the agent' > greeting.txt && cat greeting.txt",
                "callId": "call_demo_cmd",
                "sandbox_permissions": "require_escalated",
                "justification": "Write greeting.txt in the project",
            },
        ],
        "usage": {"input_tokens": 812, "output_tokens": 64},
    },
    {"items": [{"type": "apply_patch", "patch": PATCH, "callId": "call_demo_patch"}], "usage": {"input_tokens": 901, "output_tokens": 48}},
    {
        "items": [{"type": "message", "deltas": ["Done: ", "greeting.txt says hello, ", "and the README points to it."]}],
        "usage": {"input_tokens": 960, "output_tokens": 22},
    },
]

DIM, RESET = "\x1b[2m", "\x1b[0m"


def out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


async def run(decline: bool, live: bool) -> int:
    with tempfile.TemporaryDirectory(prefix="aas-py-demo-") as root_name:
        root = Path(root_name)
        workspace = root / "project"
        workspace.mkdir()
        (workspace / "README.md").write_text("# Demo project\nA project.\n")
        script = root / "model.json"
        script.write_text(json.dumps(DEMO_SCRIPT))

        args = ["-c", 'approval_policy="on-request"', "-c", 'sandbox_mode="workspace-write"']
        env = {**os.environ, "LOG_LEVEL": os.environ.get("LOG_LEVEL", "warn")}
        if not live:
            args += ["--script", str(script), "-c", 'model_provider="scripted"', "-c", 'model="demo-model"']
            env["AGENT_APP_SERVER_HOME"] = str(root / "home")

        client = await AppServerClient.spawn(
            args=args,
            cwd=workspace,
            env=env,
            client_info={"name": "python_demo", "title": "agent-app-server Python demo", "version": "1.0.0"},
        )

        # Without these two handlers every approval request is declined (the default).
        if not decline:

            def approve_command(request: CommandApprovalRequest) -> str:
                out(f"\n  ? approve `{request.command}` — {request.reason or 'no reason given'}  → accepted\n")
                return "accept"

            def approve_file_change(_request: FileChangeApprovalRequest) -> str:
                out("\n  ? approve the file change → accepted\n")
                return "accept"

            client.on_command_approval(approve_command)
            client.on_file_change_approval(approve_file_change)
        else:
            out("(no approval handlers: requests are declined, the client's default)\n")

        async with client:
            thread = (await client.start_thread(cwd=str(workspace))).thread
            prompt = "Create greeting.txt saying hello, and mention it in the README."
            out(f"user › {prompt}\n")
            streaming = False
            turn = client.run_turn(thread.id, prompt)
            async for event in turn:
                if event.method == "item/reasoning/summaryTextDelta":
                    out(f"{DIM}(thinking) {event.delta}{RESET}\n")
                elif event.method == "item/agentMessage/delta":
                    if not streaming:
                        out("\nagent › ")
                    streaming = True
                    out(event.delta or "")
                elif event.method == "item/completed":
                    item = event.item
                    if isinstance(item, AgentMessageItem):
                        streaming = False
                        out("\n")
                    elif isinstance(item, CommandExecutionItem):
                        output = (item.aggregated_output or "").rstrip().replace("\n", "\n  ")
                        ending = item.status if item.exit_code is None else f"exit {item.exit_code}, {item.status}"
                        out(f"  $ {item.command}\n" + (f"  {output}\n" if output else "") + f"  ({ending})\n")
                    elif isinstance(item, FileChangeItem):
                        for change in item.changes:
                            diff = "\n".join("    " + line for line in change.diff.rstrip().split("\n"))
                            out(f"  ✎ {os.path.relpath(change.path, workspace)} ({change.kind}, {item.status})\n{diff}\n")
                elif event.method == "thread/tokenUsage/updated":
                    usage = event.params["tokenUsage"]
                    total, last = usage["total"], usage["last"]
                    out(f"{DIM}  tokens: {total['totalTokens']} total ({last['inputTokens']} in, {last['outputTokens']} out last){RESET}\n")
            final = turn.turn
            status = final.status if final else "unknown"
            if final and final.error:
                status = f"{status}: {final.error.message}"
            out(f"\nturn {status}\n")
        return 0 if final and final.status == "completed" else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decline", action="store_true", help="set no approval handlers: requests are declined")
    parser.add_argument("--live", action="store_true", help="use the configured model instead of the scripted one")
    parser.add_argument("--verbose", action="store_true", help="log the client's debug messages on stderr")
    options = parser.parse_args()
    logging.basicConfig(level=logging.DEBUG if options.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return asyncio.run(run(options.decline, options.live))


if __name__ == "__main__":
    sys.exit(main())
