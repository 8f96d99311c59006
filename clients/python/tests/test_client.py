"""Tests of the Python client: against the built server (dist/cli.cjs) with the scripted model, and
against tests/fake_server.py for protocol edge cases the real server never shows.

Run from the repository root: python3 -m unittest discover -s clients/python/tests -v
(needs `npm run build` first; `npm test` builds, then runs these through test/python).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
import time
import unittest
from pathlib import Path
from typing import Any, Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # clients/python: the package under test

from agent_app_server_client import (  # noqa: E402
    AgentMessageItem,
    AppServerClient,
    AppServerError,
    CommandApprovalRequest,
    CommandExecutionItem,
    ConnectionClosedError,
    FileChangeApprovalRequest,
    FileChangeItem,
    MissingDependencyError,
    Notification,
    ProtocolError,
    RequestTimeoutError,
    ThreadItem,
    TurnFailedError,
    parse_item,
    to_wire_params,
)

REPO = HERE.parents[2]
CLI = REPO / "dist" / "cli.cjs"
NODE = shutil.which("node")
FAKE_SERVER = HERE / "fake_server.py"

STREAMED = [{"items": [{"type": "message", "deltas": ["Hello", ", ", "this ", "is ", "a ", "streamed ", "answer."]}]}]

# Two turns, each running an escalated command (which asks): the first is accepted, the second declined.
COMMANDS = [
    {
        "items": [
            {"type": "message", "deltas": ["I'll create the file."]},
            {
                "type": "exec",
                "cmd": "touch approved.txt && echo hi",
                "callId": "call_accept",
                "sandbox_permissions": "require_escalated",
                "justification": "Write in the workspace",
            },
        ]
    },
    {"items": [{"type": "message", "deltas": ["The command ", "printed hi."]}]},
    {
        "items": [
            {
                "type": "exec",
                "cmd": "touch declined.txt",
                "callId": "call_decline",
                "sandbox_permissions": "require_escalated",
                "justification": "Write again",
            }
        ]
    },
    {"items": [{"type": "message", "text": "You declined it."}]},
]

# Two turns, each applying a patch under a read-only sandbox (which asks): accepted, then declined.
PATCHES = [
    {"items": [{"type": "apply_patch", "callId": "call_patch_1", "patch": "*** Begin Patch\n*** Add File: hello.txt\n+Hello from the patch\n*** End Patch"}]},
    {"items": [{"type": "message", "text": "Created hello.txt."}]},
    {"items": [{"type": "apply_patch", "callId": "call_patch_2", "patch": "*** Begin Patch\n*** Add File: second.txt\n+Second\n*** End Patch"}]},
    {"items": [{"type": "message", "text": "The change was declined."}]},
]


def processes_with_env(needle: str) -> List[int]:
    """Ids of live processes whose environment contains ``needle`` (Linux /proc; [] elsewhere)."""
    found = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle.encode() in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def assert_process_gone(test: unittest.TestCase, pid: int) -> None:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return
    test.fail(f"process {pid} is still alive")


class TempDirTestCase(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="aas-python-client-"))
        self.addCleanup(shutil.rmtree, self.root, True)
        self.stderr_path = self.root / "server.stderr"
        self.stderr = open(self.stderr_path, "wb")
        self.addCleanup(self.stderr.close)
        self.clients: List[AppServerClient] = []

    def server_log(self) -> str:
        self.stderr.flush()
        return self.stderr_path.read_text(errors="replace")[-4000:]


class RealServerTest(TempDirTestCase):
    """The built server with the scripted model in a fresh HOME; every test ends by closing the
    client and checking the server exited 0 with no process left behind."""

    async def asyncSetUp(self) -> None:
        if NODE is None:
            self.fail("node is not on PATH: the Python client tests need it to run the server")
        if not CLI.is_file():
            self.fail(f"{CLI} is missing: run `npm run build` in {REPO} first")
        await super().asyncSetUp()
        self.home = self.root / "home"
        self.workspace = self.root / "workspace"
        self.home.mkdir()
        self.workspace.mkdir()

    async def asyncTearDown(self) -> None:
        for client in self.clients:
            pid = client.pid
            code = await client.close()
            self.assertEqual(code, 0, f"server exit code; its stderr:\n{self.server_log()}")
            assert pid is not None
            assert_process_gone(self, pid)
            self.assertEqual(client.protocol_errors, 0)
        self.assertEqual(processes_with_env(f"AGENT_APP_SERVER_HOME={self.home}"), [], "processes left behind")

    async def spawn(self, model: List[Dict[str, Any]], config: Optional[Dict[str, str]] = None, **options: Any) -> AppServerClient:
        script = self.root / "model.json"
        script.write_text(json.dumps(model))
        args = ["--script", str(script), "--deterministic"]
        for key, value in (config or {}).items():
            args += ["-c", f"{key}={json.dumps(value)}"]
        env = {**os.environ, "HOME": str(self.home), "AGENT_APP_SERVER_HOME": str(self.home), "LOG_LEVEL": "warn"}
        options.setdefault("request_timeout", 20.0)
        options.setdefault("turn_timeout", 30.0)
        options.setdefault("strict", True)  # anything on stdout that is not JSON-RPC fails the test
        client = await AppServerClient.spawn(
            [NODE, str(CLI), "app-server"], args=args, cwd=self.workspace, env=env, stderr=self.stderr, **options
        )
        self.clients.append(client)
        return client

    async def test_initialize_then_error_answers_raise_app_server_error(self) -> None:
        client = await self.spawn(STREAMED)
        info = client.initialize_result
        assert info is not None
        self.assertIn("agent-app-server/", info.user_agent)
        self.assertTrue(info.user_agent.startswith("agent_app_server_client_py/"))
        self.assertEqual(info.codex_home, str(self.home))
        self.assertIn("userAgent", info.raw)

        with self.assertRaises(AppServerError) as unknown:
            await client.request("no/such/method", {})
        self.assertEqual(unknown.exception.code, -32601)
        self.assertEqual(unknown.exception.data, {"method": "no/such/method"})
        self.assertIn("no/such/method", unknown.exception.message)

        with self.assertRaises(AppServerError) as invalid:
            await client.request("thread/start", {"cwd": 42})
        self.assertEqual(invalid.exception.code, -32602)
        self.assertIn("cwd", invalid.exception.message)

        with self.assertRaises(AppServerError) as again:
            await client.initialize()
        self.assertEqual(again.exception.code, -32600)

        # The connection is still usable after errors.
        started = await client.start_thread(cwd=str(self.workspace))
        self.assertTrue(started.thread.id)

    async def test_start_thread_and_stream_a_turn(self) -> None:
        client = await self.spawn(STREAMED)
        thread_started: List[Notification] = []
        client.on("thread/started", thread_started.append)
        deltas: List[str] = []
        client.on("item/agentMessage/delta", lambda event: deltas.append(event.delta or ""))

        started = await client.start_thread(cwd=str(self.workspace), approval_policy="never")
        thread = started.thread
        self.assertEqual(thread.cwd, str(self.workspace))
        self.assertEqual(thread.status, "idle")
        self.assertEqual(thread.model_provider, "scripted")
        self.assertEqual(started.approval_policy, "never")  # snake_case keyword → approvalPolicy
        self.assertEqual([event.params["thread"]["id"] for event in thread_started], [thread.id])

        turn = client.run_turn(thread.id, "Say hello.")
        events = [event async for event in turn]
        methods = [event.method for event in events]
        self.assertEqual(methods[-1], "turn/completed")
        self.assertIn("turn/started", methods)
        self.assertEqual(methods.count("item/agentMessage/delta"), 7)
        streamed = "".join(event.delta or "" for event in events if event.method == "item/agentMessage/delta")
        self.assertEqual(streamed, "Hello, this is a streamed answer.")
        self.assertEqual("".join(deltas), streamed)
        self.assertTrue(all(event.turn_id in (None, turn.turn_id) for event in events))
        assert turn.turn is not None
        self.assertEqual(turn.turn.status, "completed")
        self.assertEqual(turn.turn.id, turn.turn_id)
        completed = [event.item for event in events if event.method == "item/completed"]
        messages = [item for item in completed if isinstance(item, AgentMessageItem)]
        self.assertEqual([item.text for item in messages], [streamed])
        self.assertEqual(await AppServerClient.collect_text(iter_events(events)), streamed)

    async def test_command_approval_accepted_by_callback_then_declined_by_default(self) -> None:
        client = await self.spawn(COMMANDS, {"approval_policy": "on-request", "sandbox_mode": "workspace-write"})
        requests: List[CommandApprovalRequest] = []

        def approve(request: CommandApprovalRequest) -> str:
            requests.append(request)
            return "accept"

        client.on_command_approval(approve)
        thread = (await client.start_thread(cwd=str(self.workspace))).thread
        turn = client.run_turn(thread.id, "Create approved.txt and say hi.")
        events = [event async for event in turn]
        self.assertEqual(len(requests), 1)
        self.assertIn("touch approved.txt && echo hi", requests[0].command or "")
        self.assertEqual(requests[0].reason, "Write in the workspace")
        self.assertEqual((requests[0].thread_id, requests[0].turn_id), (thread.id, turn.turn_id))
        command = completed_items(events, CommandExecutionItem)
        self.assertEqual([(c.status, c.exit_code, c.aggregated_output) for c in command], [("completed", 0, "hi\n")])
        self.assertTrue((self.workspace / "approved.txt").exists())
        self.assertIn("serverRequest/resolved", [event.method for event in events])
        self.assertEqual(await AppServerClient.collect_text(iter_events(events)), "I'll create the file.\n\nThe command printed hi.")

        client.on_command_approval(None)  # back to the default: decline
        events = [event async for event in client.run_turn(thread.id, "Create declined.txt.")]
        self.assertEqual(len(requests), 1)
        command = completed_items(events, CommandExecutionItem)
        self.assertEqual([c.status for c in command], ["declined"])
        self.assertFalse((self.workspace / "declined.txt").exists())
        self.assertEqual(events[-1].turn.status if events[-1].turn else None, "completed")

    async def test_file_change_approval_accepted_by_async_callback_then_declined_by_default(self) -> None:
        client = await self.spawn(PATCHES, {"approval_policy": "on-request", "sandbox_mode": "read-only"})
        requests: List[FileChangeApprovalRequest] = []

        async def approve(request: FileChangeApprovalRequest) -> str:
            requests.append(request)
            return "accept"

        client.on_file_change_approval(approve)
        thread = (await client.start_thread(cwd=str(self.workspace))).thread
        events = [event async for event in client.run_turn(thread.id, "Create hello.txt.")]
        self.assertEqual([request.item_id for request in requests], ["call_patch_1"])
        changes = completed_items(events, FileChangeItem)
        self.assertEqual([c.status for c in changes], ["completed"])
        self.assertEqual([(ch.path, ch.kind) for ch in changes[0].changes], [(str(self.workspace / "hello.txt"), "add")])
        self.assertEqual((self.workspace / "hello.txt").read_text(), "Hello from the patch\n")

        client.on_file_change_approval(None)
        events = [event async for event in client.run_turn(thread.id, "Create second.txt.")]
        self.assertEqual(len(requests), 1)
        self.assertEqual([c.status for c in completed_items(events, FileChangeItem)], ["declined"])
        self.assertFalse((self.workspace / "second.txt").exists())
        self.assertEqual(await AppServerClient.collect_text(iter_events(events)), "The change was declined.")

    async def test_a_scenario_replays_through_the_server_as_its_golden_file_says(self) -> None:
        # A golden scenario (what `agent-app-server record` writes, or fixtures/) played through this client:
        # its scripted model served, its steps taken, its answers given, its checks made.
        name = "03-command-accepted"
        scenario = json.loads((REPO / "fixtures" / f"{name}.scenario.json").read_text())
        golden = [json.loads(line) for line in (REPO / "fixtures" / f"{name}.jsonl").read_text().splitlines() if line.strip()]
        expected = [
            entry["msg"]["params"]["item"]["text"]
            for entry in golden
            if entry["dir"] == "s2c" and entry["msg"].get("method") == "item/completed" and entry["msg"]["params"]["item"]["type"] == "agentMessage"
        ]
        for file, content in scenario.get("files", {}).items():
            (self.workspace / file).parent.mkdir(parents=True, exist_ok=True)
            (self.workspace / file).write_text(content)
        client = await self.spawn(scenario["model"], scenario.get("config"))
        answers = scenario.get("answers", {})
        client.on_command_approval(lambda _request: answers["item/commandExecution/requestApproval"]["result"]["decision"])
        thread_id = ""
        texts: List[str] = []
        for step in scenario["steps"]:
            if step.get("request") == "thread/start":
                thread_id = (await client.start_thread(cwd=str(self.workspace))).thread.id
            elif step.get("request") == "turn/start":
                text = step["params"]["input"][0]["text"]
                events = [event async for event in client.run_turn(thread_id, text)]
                texts += [item.text for item in completed_items(events, AgentMessageItem)]
            elif "check" in step:
                self.assertEqual((self.workspace / step["check"]["file"]).exists(), step["check"].get("exists", True))
            else:
                self.assertIn("waitFor", step, f"a step this test does not play: {step}")
        self.assertEqual(texts, expected)

    async def test_close_as_context_manager_leaves_no_process(self) -> None:
        client = await self.spawn(STREAMED)
        self.clients.remove(client)
        pid = client.pid
        assert pid is not None
        async with client:
            await client.start_thread(cwd=str(self.workspace))
        self.assertEqual(client.returncode, 0)
        self.assertTrue(client.closed)
        assert_process_gone(self, pid)
        self.assertEqual(processes_with_env(f"AGENT_APP_SERVER_HOME={self.home}"), [])
        self.assertEqual(await client.close(), 0)  # idempotent
        with self.assertRaises(ConnectionClosedError):
            await client.request("thread/list", {})


async def iter_events(events: List[Notification]):
    for event in events:
        yield event


def completed_items(events: List[Notification], kind: type) -> List[Any]:
    return [event.item for event in events if event.method == "item/completed" and isinstance(event.item, kind)]


class FakeServerTest(TempDirTestCase):
    """Protocol edge cases, against tests/fake_server.py over real pipes."""

    async def asyncTearDown(self) -> None:
        for client in self.clients:
            await client.close(timeout=5.0)

    async def spawn(self, **options: Any) -> AppServerClient:
        client = await AppServerClient.spawn([sys.executable, str(FAKE_SERVER)], stderr=self.stderr, **options)
        self.clients.append(client)
        return client

    async def test_unknown_server_request_is_answered_method_not_found(self) -> None:
        client = await self.spawn()
        answer = await client.request("test/serverRequest", {"method": "item/tool/requestUserInput", "params": {"questions": []}})
        self.assertEqual(answer["id"], 0)
        self.assertEqual(answer["error"]["code"], -32601)
        self.assertIn("item/tool/requestUserInput", answer["error"]["message"])

    async def test_approvals_default_to_decline_and_custom_handlers_answer(self) -> None:
        client = await self.spawn()
        params = {"threadId": "t", "turnId": "u", "itemId": "i", "command": "rm -rf /", "startedAtMs": 1}
        answer = await client.request("test/serverRequest", {"method": "item/commandExecution/requestApproval", "params": params})
        self.assertEqual(answer, {"id": 0, "result": {"decision": "decline"}})
        answer = await client.request("test/serverRequest", {"method": "item/fileChange/requestApproval", "params": params})
        self.assertEqual(answer, {"id": 0, "result": {"decision": "decline"}})

        client.set_request_handler("item/tool/requestUserInput", lambda p: {"answers": {"q": {"answers": ["yes"]}}})
        answer = await client.request("test/serverRequest", {"method": "item/tool/requestUserInput", "params": {}})
        self.assertEqual(answer["result"], {"answers": {"q": {"answers": ["yes"]}}})

        def broken(_request: CommandApprovalRequest) -> str:
            raise RuntimeError("no terminal")

        client.on_command_approval(broken)
        with self.assertLogs("agent_app_server_client", "ERROR"):
            answer = await client.request("test/serverRequest", {"method": "item/commandExecution/requestApproval", "params": params})
        self.assertEqual(answer["error"]["code"], -32603)
        self.assertIn("no terminal", answer["error"]["message"])

    async def test_non_json_lines_are_reported_and_the_client_goes_on(self) -> None:
        reported: List[ProtocolError] = []
        client = await self.spawn(on_protocol_error=reported.append)
        self.assertEqual(await client.request("test/garbage"), {"ok": True})
        self.assertEqual([error.line for error in reported], ["this is not JSON", "[1, 2]"])
        self.assertIn("not JSON", str(reported[0]))
        self.assertEqual(client.protocol_errors, 2)

        quiet = await self.spawn()  # no handler: logged at ERROR
        with self.assertLogs("agent_app_server_client", "ERROR") as logs:
            self.assertEqual(await quiet.request("test/garbage"), {"ok": True})
        self.assertIn("this is not JSON", "\n".join(logs.output))

    async def test_strict_mode_makes_a_non_json_line_fatal(self) -> None:
        client = await self.spawn(strict=True, on_protocol_error=lambda error: None)
        with self.assertRaises(ProtocolError):
            await client.request("test/garbage")
        with self.assertRaises(ProtocolError):
            await client.request("initialize", {})
        self.assertTrue(client.closed)

    async def test_an_overlong_line_is_dropped_and_reported(self) -> None:
        reported: List[ProtocolError] = []
        client = await self.spawn(max_line_bytes=1024, on_protocol_error=reported.append)
        with client.subscribe("test/long") as long_lines:
            self.assertEqual(await client.request("test/longLine", {"bytes": 5000}), {"ok": True})
            with self.assertRaises(RequestTimeoutError):
                await long_lines.next(timeout=0)
        self.assertEqual(len(reported), 1)
        self.assertIn("longer than the limit", str(reported[0]))

    async def test_request_timeout(self) -> None:
        client = await self.spawn()
        with self.assertRaises(RequestTimeoutError) as raised:
            await client.request("test/silent", timeout=0.2)
        self.assertIsInstance(raised.exception, TimeoutError)
        self.assertIn("test/silent", str(raised.exception))

    async def test_server_exit_fails_pending_requests_with_its_exit_code(self) -> None:
        client = await self.spawn()
        with self.assertRaises(ConnectionClosedError) as raised:
            await client.request("test/exit", {"code": 3})
        self.assertEqual(raised.exception.code, -32000)
        self.assertEqual(raised.exception.returncode, 3)
        self.assertIn("exited with code 3", str(raised.exception))
        with self.assertRaises(ConnectionClosedError):
            await client.request("initialize", {})
        with self.assertRaises(ConnectionClosedError):
            await client.subscribe().next()

    async def test_close_kills_a_server_that_does_not_exit(self) -> None:
        client = await self.spawn()
        await client.request("test/stubborn")  # answered after it ignores SIGTERM and stdin EOF
        pid = client.pid
        assert pid is not None
        started = time.monotonic()
        with self.assertLogs("agent_app_server_client", "WARNING"):
            code = await client.close(timeout=0.3)
        self.assertEqual(code, -9)
        self.assertLess(time.monotonic() - started, 5.0)
        assert_process_gone(self, pid)


class ExampleTest(TempDirTestCase):
    async def test_demo_runs_a_scripted_turn(self) -> None:
        if NODE is None or not CLI.is_file():
            self.fail(f"the demo needs node and {CLI} (run `npm run build` in {REPO})")
        demo = HERE.parent / "examples" / "demo.py"
        process = await asyncio.create_subprocess_exec(
            sys.executable, str(demo), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        try:
            output, _ = await asyncio.wait_for(process.communicate(), 60)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()
            self.fail("the demo did not finish within 60 s")
        text = output.decode(errors="replace")
        self.assertEqual(process.returncode, 0, text)
        self.assertIn("→ accepted", text)
        self.assertIn("agent › Done: greeting.txt says hello, and the README points to it.", text)
        self.assertIn("turn completed", text)


class OfflineTest(unittest.IsolatedAsyncioTestCase):
    async def test_websocket_without_the_websockets_package_fails_clearly(self) -> None:
        try:
            import websockets  # noqa: F401
        except ImportError:
            pass
        else:
            self.skipTest("the optional websockets package is installed, so the missing-dependency error cannot be shown")
        with self.assertRaises(MissingDependencyError) as raised:
            await AppServerClient.connect("ws://127.0.0.1:9")
        self.assertIn("pip install websockets", str(raised.exception))
        self.assertIsInstance(raised.exception, ImportError)

    def test_models_keep_unknown_fields_and_types(self) -> None:
        item = parse_item({"type": "agentMessage", "id": "m1", "text": "hi", "newField": 1})
        self.assertIsInstance(item, AgentMessageItem)
        self.assertEqual((item.id, item.text, item.raw["newField"]), ("m1", "hi", 1))
        other = parse_item({"type": "futureThing", "id": "x", "payload": [1]})
        self.assertIs(type(other), ThreadItem)
        self.assertEqual((other.type, other.raw["payload"]), ("futureThing", [1]))
        command = parse_item({"type": "commandExecution", "id": "c", "command": "ls", "cwd": "/", "status": "completed", "exitCode": 0, "commandActions": []})
        self.assertIsInstance(command, CommandExecutionItem)
        self.assertEqual(command.exit_code, 0)

    async def test_collect_text_of_a_failed_turn_raises_with_its_error(self) -> None:
        partial = Notification("item/completed", {"item": {"type": "agentMessage", "id": "m", "text": "Let me"}})
        failed = Notification("turn/completed", {"turn": {"id": "t1", "status": "failed", "items": [], "error": {"message": "the provider is down"}}})
        with self.assertRaises(TurnFailedError) as raised:
            await AppServerClient.collect_text(iter_events([partial, failed]))
        self.assertEqual(str(raised.exception), "turn t1 failed: the provider is down")
        self.assertEqual((raised.exception.turn.status, raised.exception.error.message), ("failed", "the provider is down"))
        interrupted = Notification("turn/completed", {"turn": {"id": "t2", "status": "interrupted", "items": []}})
        with self.assertRaises(TurnFailedError) as raised:
            await AppServerClient.collect_text(iter_events([interrupted]))
        self.assertEqual(str(raised.exception), "turn t2 was interrupted")

    def test_snake_case_params_become_camel_case(self) -> None:
        self.assertEqual(
            to_wire_params({"approval_policy": "never", "cwd": "/", "developerInstructions": "x", "base_instructions": "y"}),
            {"approvalPolicy": "never", "cwd": "/", "developerInstructions": "x", "baseInstructions": "y"},
        )


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    unittest.main()
