"""AppServerClient: JSON-RPC over a transport, notifications, approvals, turns."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Union

from .errors import AppServerError, ClientError, ConnectionClosedError, ProtocolError, RequestTimeoutError
from .events import DEFAULT, EventSubscription, TurnEvents, collect_text
from .models import (
    CommandApprovalRequest,
    CommandDecision,
    FileChangeApprovalRequest,
    FileChangeDecision,
    InitializeResult,
    Notification,
    ThreadStartResult,
)
from .transport import DEFAULT_MAX_LINE_BYTES, StderrTarget, StdioTransport, Transport, WebSocketTransport

__all__ = ["AppServerClient", "default_command", "DEFAULT_CLIENT_INFO"]

logger = logging.getLogger("agent_app_server_client")

#: The repository this package lives in (``clients/python/agent_app_server_client`` → repo root).
REPO_ROOT = Path(__file__).resolve().parents[3]

DEFAULT_CLIENT_INFO: Dict[str, str] = {
    "name": "agent_app_server_client_py",
    "title": "agent-app-server Python client",
    "version": "0.1.0",
}

NotificationHandler = Callable[[Notification], Any]
CommandApprovalHandler = Callable[[CommandApprovalRequest], Union[CommandDecision, Awaitable[CommandDecision]]]
FileChangeApprovalHandler = Callable[[FileChangeApprovalRequest], Union[FileChangeDecision, Awaitable[FileChangeDecision]]]
RequestHandler = Callable[[Any], Any]
ProtocolErrorHandler = Callable[[ProtocolError], Any]

COMMAND_APPROVAL = "item/commandExecution/requestApproval"
FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval"


def default_command(*args: str) -> List[str]:
    """``node <repo>/dist/cli.cjs app-server ARGS…`` when this package sits in the repository and
    the server is built, else ``agent-app-server app-server ARGS…`` from ``PATH``."""
    cli = REPO_ROOT / "dist" / "cli.cjs"
    if cli.is_file():
        node = shutil.which("node")
        if node is None:
            raise FileNotFoundError("cannot start the server: `node` is not on PATH")
        return [node, str(cli), "app-server", *args]
    installed = shutil.which("agent-app-server")
    if installed is not None:
        return [installed, "app-server", *args]
    if (REPO_ROOT / "package.json").is_file():
        where = f"{cli} does not exist (run `npm run build` in {REPO_ROOT}) and `agent-app-server` is not on PATH"
    else:
        where = "`agent-app-server` is not on PATH"
    raise FileNotFoundError(f"cannot find the server: {where}; or pass command=[...]")


def to_wire_params(params: Mapping[str, Any]) -> Dict[str, Any]:
    """Top-level snake_case keys become camelCase (``approval_policy`` → ``approvalPolicy``);
    camelCase keys and nested values are left alone."""
    wire: Dict[str, Any] = {}
    for key, value in params.items():
        if "_" in key.strip("_"):
            head, *rest = key.split("_")
            key = head + "".join(part[:1].upper() + part[1:] for part in rest)
        wire[key] = value
    return wire


async def _resolve(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _decline_command(_request: CommandApprovalRequest) -> CommandDecision:
    return "decline"


def _decline_file_change(_request: FileChangeApprovalRequest) -> FileChangeDecision:
    return "decline"


class AppServerClient:
    """A client of the app-server protocol (v2) over any :class:`Transport`.

    Usually made by :meth:`spawn` (a child process over stdio) or :meth:`connect` (``ws://``),
    which also initialize. Must be constructed inside a running event loop (it starts a reader task).

    Timeouts, in seconds (``None`` disables one; every wait has one by default):
    ``request_timeout`` for each answer, ``turn_timeout`` for a whole :meth:`run_turn`,
    ``event_timeout`` for :meth:`subscribe`'s ``next()``, ``close_timeout`` for the server to exit
    after its stdin is closed (then SIGTERM, then SIGKILL).

    A stdout line that is not a JSON-RPC message is reported: to ``on_protocol_error`` if given,
    else logged at ERROR on the ``agent_app_server_client`` logger; the client goes on. With
    ``strict=True`` it is fatal: pending requests and running turns raise :class:`ProtocolError`.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        request_timeout: Optional[float] = 60.0,
        turn_timeout: Optional[float] = 600.0,
        event_timeout: Optional[float] = 300.0,
        close_timeout: float = 5.0,
        strict: bool = False,
        on_protocol_error: Optional[ProtocolErrorHandler] = None,
        on_command_approval: Optional[CommandApprovalHandler] = None,
        on_file_change_approval: Optional[FileChangeApprovalHandler] = None,
    ) -> None:
        self._transport = transport
        self.request_timeout = request_timeout
        self.turn_timeout = turn_timeout
        self.event_timeout = event_timeout
        self.close_timeout = close_timeout
        self.strict = strict
        self._on_protocol_error = on_protocol_error
        self._next_id = 1
        self._pending: Dict[int, "asyncio.Future[Any]"] = {}
        self._listeners: Dict[str, List[NotificationHandler]] = {}
        self._any_listeners: List[NotificationHandler] = []
        self._subscriptions: Set[EventSubscription] = set()
        self._tasks: Set["asyncio.Task[Any]"] = set()
        self._command_approval: CommandApprovalHandler = on_command_approval or _decline_command
        self._file_change_approval: FileChangeApprovalHandler = on_file_change_approval or _decline_file_change
        self._request_handlers: Dict[str, RequestHandler] = {
            COMMAND_APPROVAL: self._answer_command_approval,
            FILE_CHANGE_APPROVAL: self._answer_file_change_approval,
        }
        self._ended: Optional[ClientError] = None
        self._closing = False
        self._closed = False
        self._returncode: Optional[int] = None
        #: How many invalid lines / messages the server has sent.
        self.protocol_errors = 0
        #: The answer to ``initialize``, once initialized.
        self.initialize_result: Optional[InitializeResult] = None
        self._reader = asyncio.get_running_loop().create_task(self._read_loop())

    # ------------------------------------------------------------------ construction

    @classmethod
    async def spawn(
        cls,
        command: Optional[Sequence[str]] = None,
        *,
        args: Sequence[str] = (),
        cwd: Union[str, "os.PathLike[str]", None] = None,
        env: Optional[Mapping[str, str]] = None,
        stderr: StderrTarget = None,
        client_info: Optional[Mapping[str, str]] = None,
        initialize: bool = True,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        **options: Any,
    ) -> "AppServerClient":
        """Spawns the server (``command``, default :func:`default_command`; ``args`` are appended),
        with ``cwd``, ``env`` (default: ours) and ``stderr`` (default: inherited), and initializes
        unless ``initialize=False``. ``options`` go to the constructor."""
        argv = [*(command if command is not None else default_command()), *args]
        transport = await StdioTransport.spawn(argv, cwd=cwd, env=env, stderr=stderr, max_line_bytes=max_line_bytes)
        return await cls._start(transport, client_info, initialize, options)

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        token: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        client_info: Optional[Mapping[str, str]] = None,
        initialize: bool = True,
        open_timeout: float = 10.0,
        **options: Any,
    ) -> "AppServerClient":
        """Connects to ``agent-app-server --listen ws://…`` (needs the ``websockets`` package) and
        initializes; ``token`` is sent as ``Authorization: Bearer …``."""
        transport = await WebSocketTransport.connect(url, token=token, headers=headers, open_timeout=open_timeout)
        return await cls._start(transport, client_info, initialize, options)

    @classmethod
    async def _start(
        cls, transport: Any, client_info: Optional[Mapping[str, str]], initialize: bool, options: Mapping[str, Any]
    ) -> "AppServerClient":
        """Wraps a connected transport and initializes; a failed initialize closes the connection."""
        client = cls(transport, **options)
        if initialize:
            try:
                await client.initialize(client_info)
            except BaseException:
                await client.close()
                raise
        return client

    async def initialize(
        self, client_info: Optional[Mapping[str, str]] = None, capabilities: Optional[Mapping[str, Any]] = None
    ) -> InitializeResult:
        """Sends ``initialize`` then the ``initialized`` notification (spawn/connect do this)."""
        params: Dict[str, Any] = {"clientInfo": dict(client_info or DEFAULT_CLIENT_INFO)}
        if capabilities is not None:
            params["capabilities"] = dict(capabilities)
        result = await self.request("initialize", params)
        await self.notify("initialized")
        self.initialize_result = InitializeResult.from_wire(result if isinstance(result, dict) else {})
        return self.initialize_result

    # ------------------------------------------------------------------ state

    @property
    def transport(self) -> Transport:
        return self._transport

    @property
    def pid(self) -> Optional[int]:
        """The spawned server's process id (``None`` over WebSocket)."""
        return self._transport.pid if isinstance(self._transport, StdioTransport) else None

    @property
    def returncode(self) -> Optional[int]:
        """The spawned server's exit code once it has exited."""
        if isinstance(self._transport, StdioTransport):
            return self._transport.returncode
        return self._returncode

    @property
    def closed(self) -> bool:
        """True once the connection has ended (closed by us, or by the server)."""
        return self._ended is not None

    # ------------------------------------------------------------------ messages

    async def request(self, method: str, params: Any = None, *, timeout: Optional[float] = DEFAULT) -> Any:
        """Sends a request and returns its ``result``. An error answer raises
        :class:`AppServerError` (``code``, ``message``, ``data``); no answer within ``timeout``
        (default ``request_timeout``) raises :class:`RequestTimeoutError`."""
        if self._ended is not None:
            raise self._ended
        request_id = self._next_id
        self._next_id += 1
        future: "asyncio.Future[Any]" = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        message: Dict[str, Any] = {"id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        limit = self.request_timeout if timeout is DEFAULT else timeout
        try:
            await self._send(message)
            return await asyncio.wait_for(future, limit)
        except asyncio.TimeoutError:
            raise RequestTimeoutError(f"no answer to {method} (request {request_id}) within {limit} s") from None
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: Any = None) -> None:
        """Sends a notification."""
        if self._ended is not None:
            raise self._ended
        await self._send({"method": method} if params is None else {"method": method, "params": params})

    async def _send(self, message: Mapping[str, Any]) -> None:
        await self._transport.send(json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    # ------------------------------------------------------------------ notifications

    def on(self, method: str, handler: NotificationHandler) -> Callable[[], None]:
        """Calls ``handler(notification)`` for every notification of ``method`` (a coroutine
        function is run as a task). Returns a function that removes it."""
        handlers = self._listeners.setdefault(method, [])
        handlers.append(handler)

        def remove() -> None:
            if handler in handlers:
                handlers.remove(handler)

        return remove

    def on_any(self, handler: NotificationHandler) -> Callable[[], None]:
        """Calls ``handler(notification)`` for every notification. Returns a function that removes it."""
        self._any_listeners.append(handler)

        def remove() -> None:
            if handler in self._any_listeners:
                self._any_listeners.remove(handler)

        return remove

    def subscribe(
        self,
        method: Union[str, Iterable[str], None] = None,
        *,
        predicate: Optional[Callable[[Notification], bool]] = None,
        timeout: Optional[float] = DEFAULT,
    ) -> EventSubscription:
        """Queues the notifications (of ``method``, one or several, and accepted by ``predicate``)
        from now on; read them with ``await sub.next()`` or ``async for``. Subscribe *before*
        doing what causes them."""
        methods = None if method is None else ({method} if isinstance(method, str) else set(method))

        def accept(event: Notification) -> bool:
            return (methods is None or event.method in methods) and (predicate is None or predicate(event))

        subscription = EventSubscription(self, accept, self.event_timeout if timeout is DEFAULT else timeout)
        if self._ended is not None:
            subscription._end(self._ended)
        else:
            self._subscriptions.add(subscription)
        return subscription

    def _unsubscribe(self, subscription: EventSubscription) -> None:
        self._subscriptions.discard(subscription)

    # ------------------------------------------------------------------ server requests

    def on_command_approval(self, handler: Optional[CommandApprovalHandler]) -> Optional[CommandApprovalHandler]:
        """Sets who decides ``item/commandExecution/requestApproval``: ``handler(request)`` returns
        (or awaits to) ``"accept"``, ``"acceptForSession"``, ``"decline"`` or ``"cancel"``.
        ``None`` restores the default, which declines. Usable as a decorator."""
        self._command_approval = handler or _decline_command
        return handler

    def on_file_change_approval(self, handler: Optional[FileChangeApprovalHandler]) -> Optional[FileChangeApprovalHandler]:
        """Sets who decides ``item/fileChange/requestApproval`` (as :meth:`on_command_approval`;
        the default declines)."""
        self._file_change_approval = handler or _decline_file_change
        return handler

    def set_request_handler(self, method: str, handler: Optional[RequestHandler]) -> None:
        """Answers server requests of ``method`` with ``handler(params)``'s return value (awaited
        if needed; an exception answers error -32603). ``None`` removes it: requests nobody
        handles are answered with error -32601."""
        if handler is None:
            self._request_handlers.pop(method, None)
        else:
            self._request_handlers[method] = handler

    async def _answer_command_approval(self, params: Any) -> Dict[str, Any]:
        request = CommandApprovalRequest.from_wire(params if isinstance(params, dict) else {})
        return {"decision": self._check_decision(await _resolve(self._command_approval(request)), COMMAND_APPROVAL)}

    async def _answer_file_change_approval(self, params: Any) -> Dict[str, Any]:
        request = FileChangeApprovalRequest.from_wire(params if isinstance(params, dict) else {})
        return {"decision": self._check_decision(await _resolve(self._file_change_approval(request)), FILE_CHANGE_APPROVAL)}

    @staticmethod
    def _check_decision(decision: Any, method: str) -> Any:
        if decision is None:
            logger.warning("the %s handler returned None; declining", method)
            return "decline"
        if not isinstance(decision, (str, dict)):
            raise TypeError(f"the {method} handler returned {decision!r}; expected a decision such as 'accept' or 'decline'")
        return decision

    async def _answer(self, request_id: Any, method: str, params: Any) -> None:
        handler = self._request_handlers.get(method)
        if handler is None:
            logger.info("declining server request %s (id %r): no handler", method, request_id)
            response: Dict[str, Any] = {
                "id": request_id,
                "error": {"code": -32601, "message": f"this client does not handle {method}"},
            }
        else:
            try:
                response = {"id": request_id, "result": await _resolve(handler(params))}
            except Exception as error:
                logger.exception("the handler of %s (id %r) failed", method, request_id)
                response = {"id": request_id, "error": {"code": -32603, "message": f"{type(error).__name__}: {error}"}}
        try:
            await self._send(response)
        except ClientError as error:
            logger.debug("could not answer %s (id %r): %s", method, request_id, error)

    # ------------------------------------------------------------------ threads and turns

    async def start_thread(self, **params: Any) -> ThreadStartResult:
        """``thread/start`` (keyword arguments are its params: ``cwd``, ``model``,
        ``approval_policy``/``approvalPolicy``, ``sandbox``, …)."""
        return ThreadStartResult.from_wire(await self.request("thread/start", to_wire_params(params)))

    async def resume_thread(self, thread_id: str, **params: Any) -> ThreadStartResult:
        """``thread/resume``: loads a stored thread and subscribes to it."""
        return ThreadStartResult.from_wire(await self.request("thread/resume", {**to_wire_params(params), "threadId": thread_id}))

    async def interrupt_turn(self, thread_id: str, turn_id: str) -> None:
        """``turn/interrupt``."""
        await self.request("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})

    def run_turn(
        self,
        thread_id: str,
        input: Union[str, Sequence[Mapping[str, Any]]],
        *,
        timeout: Optional[float] = DEFAULT,
        **overrides: Any,
    ) -> TurnEvents:
        """Starts a turn (``turn/start``; ``input`` is a text or a list of ``UserInput`` dicts;
        ``overrides`` are further params such as ``model`` or ``approval_policy``) and iterates over
        its notifications up to and including ``turn/completed``::

            async for event in client.run_turn(thread_id, "Hello"):
                if event.method == "item/agentMessage/delta":
                    print(event.delta, end="")

        The turn starts when iteration begins. ``timeout`` (default ``turn_timeout``) bounds the
        whole turn. Approval requests during the turn go to the approval handlers."""
        items = [{"type": "text", "text": input}] if isinstance(input, str) else [dict(item) for item in input]
        params = {**to_wire_params(overrides), "threadId": thread_id, "input": items}
        return TurnEvents(self, thread_id, params, self.turn_timeout if timeout is DEFAULT else timeout)

    collect_text = staticmethod(collect_text)

    # ------------------------------------------------------------------ reading

    async def _read_loop(self) -> None:
        while True:
            try:
                text = await self._transport.receive()
            except ProtocolError as error:
                self._protocol_error(error)
                continue
            except asyncio.CancelledError:
                raise
            except Exception as error:  # pragma: no cover - unexpected transport failure
                logger.exception("reading from the server failed")
                self._end(ConnectionClosedError(f"reading from the server failed: {error}"))
                return
            if text is None:
                if isinstance(self._transport, StdioTransport) and not self._closing:
                    await self._transport.wait_exit(1.0)  # so the error can name the exit code
                reason = "the client closed the connection" if self._closing else self._transport.describe_end()
                self._end(ConnectionClosedError(reason, self.returncode))
                return
            if self._ended is not None:
                continue  # a fatal protocol error ended the connection: drain until EOF
            self._receive(text)

    def _receive(self, text: str) -> None:
        try:
            message = json.loads(text)
        except ValueError as error:
            self._protocol_error(ProtocolError(f"the server wrote a line that is not JSON ({error}): {text[:200]!r}", text))
            return
        if not isinstance(message, dict):
            self._protocol_error(ProtocolError(f"the server wrote JSON that is not a message object: {text[:200]!r}", text))
            return
        method = message.get("method")
        if isinstance(method, str):
            params = message.get("params")
            if "id" in message:
                self._spawn(self._answer(message["id"], method, params))
            else:
                self._notify_listeners(Notification(method, params if isinstance(params, dict) else {}))
            return
        if "id" in message and ("result" in message or "error" in message):
            self._resolve_pending(message)
            return
        self._protocol_error(ProtocolError(f"the server wrote a message that is not JSON-RPC: {text[:200]!r}", text))

    def _resolve_pending(self, message: Dict[str, Any]) -> None:
        request_id = message.get("id")
        future = self._pending.get(request_id) if isinstance(request_id, int) and not isinstance(request_id, bool) else None
        error = message.get("error")
        if future is None:
            if request_id is None and error is not None:
                logger.error("the server reported an error not tied to a request: %s", error)
            else:
                logger.warning("an answer to an unknown (or timed-out) request id %r was ignored", request_id)
            return
        if future.done():
            return
        if error is not None:
            if isinstance(error, dict):
                code = error.get("code")
                future.set_exception(
                    AppServerError(str(error.get("message", "")), code if isinstance(code, int) else -32603, error.get("data"))
                )
            else:
                future.set_exception(AppServerError(f"malformed error answer: {error!r}", -32603, error))
        else:
            future.set_result(message.get("result"))

    def _notify_listeners(self, notification: Notification) -> None:
        for handler in [*self._listeners.get(notification.method, ()), *self._any_listeners]:
            try:
                result = handler(notification)
                if inspect.isawaitable(result):
                    self._spawn(result)
            except Exception:
                logger.exception("a handler of %s raised", notification.method)
        for subscription in list(self._subscriptions):
            subscription._offer(notification)

    def _protocol_error(self, error: ProtocolError) -> None:
        self.protocol_errors += 1
        if self._on_protocol_error is not None:
            try:
                self._on_protocol_error(error)
            except Exception:
                logger.exception("on_protocol_error raised")
        else:
            logger.error("protocol error: %s", error)
        if self.strict:
            self._end(error)

    def _spawn(self, awaitable: Awaitable[Any]) -> None:
        async def run() -> None:
            try:
                await awaitable
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("a background task of the client failed")

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _end(self, error: ClientError) -> None:
        """The connection is over (or unusable): fail what waits, end subscriptions."""
        if self._ended is not None:
            return
        self._ended = error
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()
        for subscription in list(self._subscriptions):
            subscription._end(error)
        self._subscriptions.clear()

    # ------------------------------------------------------------------ closing

    async def close(self, timeout: Optional[float] = None) -> Optional[int]:
        """Closes the connection: for a spawned server, closes its stdin and waits ``timeout``
        (default ``close_timeout``) seconds for it to exit, then sends SIGTERM and waits up to
        ``timeout`` (at most 2) seconds more, then SIGKILL. Returns the
        server's exit code (``None`` over WebSocket). Safe to call twice."""
        if self._closed:
            return self.returncode
        self._closing = True
        try:
            self._returncode = await self._transport.close(self.close_timeout if timeout is None else timeout)
            try:
                await asyncio.wait_for(asyncio.shield(self._reader), 2.0)
            except asyncio.TimeoutError:
                self._reader.cancel()
                await asyncio.gather(self._reader, return_exceptions=True)
            except Exception:  # pragma: no cover - the reader handles its own errors
                logger.exception("the reader task failed")
        finally:
            self._closed = True
            self._end(ConnectionClosedError("the client closed the connection", self.returncode))
            for task in list(self._tasks):
                task.cancel()
            if self._tasks:
                await asyncio.gather(*self._tasks, return_exceptions=True)
        return self.returncode

    async def __aenter__(self) -> "AppServerClient":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()
