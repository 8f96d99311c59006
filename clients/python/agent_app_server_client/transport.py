"""How the client exchanges messages with a server: one JSON text per message.

``StdioTransport`` spawns the server and speaks newline-delimited JSON over its stdin/stdout.
``WebSocketTransport`` connects to ``agent-app-server --listen ws://…``; it needs the optional
``websockets`` package, imported only when a WebSocket connection is made.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from abc import ABC, abstractmethod
from typing import IO, Any, Mapping, Sequence, Union

from .errors import ConnectionClosedError, MissingDependencyError, ProtocolError, RequestTimeoutError

__all__ = ["Transport", "StdioTransport", "WebSocketTransport", "DEFAULT_MAX_LINE_BYTES"]

logger = logging.getLogger("agent_app_server_client")

#: Longest stdout line accepted (the server's own default input limit is 64 MiB too).
DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024

StderrTarget = Union[int, IO[Any], None]


class Transport(ABC):
    """One connection to a server. ``receive`` returns ``None`` once the connection has ended."""

    @abstractmethod
    async def send(self, text: str) -> None:
        """Sends one message (a JSON text, without a trailing newline)."""

    @abstractmethod
    async def receive(self) -> str | None:
        """The next message text, or ``None`` at the end of the connection."""

    @abstractmethod
    async def close(self, timeout: float) -> int | None:
        """Ends the connection within ``timeout`` seconds; returns the server's exit code if known."""

    def describe_end(self) -> str:
        """Why the connection ended, for error messages."""
        return "the server closed the connection"


class StdioTransport(Transport):
    """A spawned server's stdin/stdout, newline-delimited JSON (stderr is the server's log)."""

    def __init__(self, process: asyncio.subprocess.Process, max_line_bytes: int) -> None:
        self.process = process
        self._max_line_bytes = max_line_bytes
        self._write_lock = asyncio.Lock()
        self._closing = False

    @classmethod
    async def spawn(
        cls,
        command: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        stderr: StderrTarget = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> "StdioTransport":
        """Starts ``command`` with piped stdin/stdout; ``stderr`` is inherited unless given."""
        if not command:
            raise ValueError("command must not be empty")
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            # The stream reader's buffer limit bounds one line; the default (64 KiB) is far too small
            # for protocol messages (a command's aggregated output alone may be 1 MiB).
            limit=max_line_bytes,
        )
        logger.debug("spawned %s (pid %d)", list(command), process.pid)
        return cls(process, max_line_bytes)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def send(self, text: str) -> None:
        stdin = self.process.stdin
        if stdin is None or stdin.is_closing():
            raise ConnectionClosedError(self.describe_end(), self.process.returncode)
        async with self._write_lock:
            try:
                stdin.write(text.encode("utf-8") + b"\n")
                await stdin.drain()
            except (BrokenPipeError, ConnectionResetError) as error:
                raise ConnectionClosedError(f"{self.describe_end()} ({error})", self.process.returncode) from error

    async def receive(self) -> str | None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            try:
                line = await stdout.readuntil(b"\n")
            except asyncio.IncompleteReadError as error:
                line = error.partial  # EOF; a last line without a newline still counts
                if not line.strip():
                    return None
            except asyncio.LimitOverrunError as error:
                # Drop the oversized line so the stream stays usable, and report it.
                dropped = 0
                while True:
                    try:
                        chunk = await stdout.readuntil(b"\n")
                        dropped += len(chunk)
                        break
                    except asyncio.LimitOverrunError as more:
                        dropped += len(await stdout.readexactly(more.consumed))
                    except asyncio.IncompleteReadError as end:
                        dropped += len(end.partial)
                        break
                raise ProtocolError(
                    f"a stdout line of {dropped} bytes, longer than the limit of {self._max_line_bytes}, was dropped"
                ) from error
            if line.strip():
                return line.decode("utf-8", errors="replace").rstrip("\r\n")

    async def close(self, timeout: float) -> int | None:
        """Closes stdin (the server's signal to shut down) and waits ``timeout`` s for it to exit;
        then sends SIGTERM and waits ``min(timeout, 2)`` s more; then SIGKILL."""
        self._closing = True
        process = self.process
        stdin = process.stdin
        if stdin is not None and not stdin.is_closing():
            try:
                stdin.close()
            except (BrokenPipeError, ConnectionResetError):  # pragma: no cover - platform dependent
                pass
        if await self._wait(timeout):
            return process.returncode
        logger.warning("server (pid %d) did not exit %.1f s after stdin closed; sending SIGTERM", process.pid, timeout)
        self._signal(signal.SIGTERM)
        if await self._wait(min(timeout, 2.0)):
            return process.returncode
        logger.warning("server (pid %d) ignored SIGTERM; killing it", process.pid)
        try:
            process.kill()
        except ProcessLookupError:
            pass
        if not await self._wait(5.0):
            raise RequestTimeoutError(f"server (pid {process.pid}) did not exit after SIGKILL")
        return process.returncode

    async def wait_exit(self, timeout: float) -> bool:
        """Waits up to ``timeout`` seconds for the server to exit; True if it has."""
        return await self._wait(timeout)

    async def _wait(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self.process.wait(), timeout)
            return True
        except asyncio.TimeoutError:
            return False

    def _signal(self, sig: int) -> None:
        try:
            self.process.send_signal(sig)
        except ProcessLookupError:
            pass

    def describe_end(self) -> str:
        code = self.process.returncode
        if code is None:
            return "the server closed its stdout" if not self._closing else "the client closed the connection"
        if code < 0:
            return f"the server was killed by signal {-code}"
        return f"the server exited with code {code}"


class WebSocketTransport(Transport):
    """A WebSocket connection (``ws://host:port``), one JSON-RPC message per text frame."""

    def __init__(self, socket: Any, closed_exception: type[BaseException]) -> None:
        self._socket = socket
        self._closed_exception = closed_exception
        self._close_reason = "the WebSocket closed"

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        open_timeout: float = 10.0,
        max_message_bytes: int | None = DEFAULT_MAX_LINE_BYTES,
    ) -> "WebSocketTransport":
        try:
            import websockets  # noqa: F401  (optional dependency, imported on first use)
            from websockets.exceptions import ConnectionClosed
        except ImportError as error:
            raise MissingDependencyError(
                "WebSocket connections need the optional 'websockets' package, which is not installed: "
                "run `pip install websockets` (or use the stdio transport: AppServerClient.spawn())."
            ) from error
        all_headers = dict(headers or {})
        if token is not None:
            all_headers["Authorization"] = f"Bearer {token}"
        try:  # websockets >= 13: the asyncio implementation
            from websockets.asyncio.client import connect as ws_connect

            header_option = "additional_headers"
        except ImportError:  # older releases: the legacy implementation
            from websockets import connect as ws_connect  # type: ignore[no-redef,attr-defined]

            header_option = "extra_headers"
        options: dict[str, Any] = {"open_timeout": open_timeout, "max_size": max_message_bytes}
        if all_headers:
            options[header_option] = all_headers
        socket = await ws_connect(url, **options)
        return cls(socket, ConnectionClosed)

    async def send(self, text: str) -> None:
        try:
            await self._socket.send(text)
        except self._closed_exception as error:
            raise ConnectionClosedError(f"the WebSocket closed ({error})") from error

    async def receive(self) -> str | None:
        try:
            data = await self._socket.recv()
        except self._closed_exception as error:
            self._close_reason = f"the WebSocket closed ({error})"
            return None
        return data.decode("utf-8", errors="replace") if isinstance(data, (bytes, bytearray)) else data

    async def close(self, timeout: float) -> int | None:
        try:
            await asyncio.wait_for(self._socket.close(), timeout)
        except asyncio.TimeoutError:
            logger.warning("the WebSocket did not close within %.1f s", timeout)
        return None

    def describe_end(self) -> str:
        return self._close_reason
