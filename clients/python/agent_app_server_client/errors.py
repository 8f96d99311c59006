"""Exceptions raised by the client."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ClientError",
    "AppServerError",
    "ConnectionClosedError",
    "ProtocolError",
    "RequestTimeoutError",
    "MissingDependencyError",
    "TurnFailedError",
]

#: JSON-RPC error code this client uses for "the connection is gone" (as the TypeScript client does).
CONNECTION_CLOSED_CODE = -32000


class ClientError(Exception):
    """Base class of every error this package raises on purpose."""


class AppServerError(ClientError):
    """A JSON-RPC error answer from the server (``code``, ``message``, optional ``data``)."""

    def __init__(self, message: str, code: int, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data

    def __str__(self) -> str:
        return f"{self.message} (code {self.code})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(message={self.message!r}, code={self.code!r}, data={self.data!r})"


class ConnectionClosedError(AppServerError):
    """The connection ended (the server exited or the client closed) before an answer came."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message, CONNECTION_CLOSED_CODE, None)
        self.returncode = returncode


class ProtocolError(ClientError):
    """The server wrote something that is not a JSON-RPC message (e.g. a non-JSON stdout line)."""

    def __init__(self, message: str, line: str | None = None) -> None:
        super().__init__(message)
        self.line = line


class RequestTimeoutError(ClientError, TimeoutError):
    """A wait (an answer, a turn, the next event, the server's exit) took longer than its timeout."""


class MissingDependencyError(ClientError, ImportError):
    """An optional dependency (the ``websockets`` package for ``ws://``) is not installed."""


class TurnFailedError(ClientError):
    """A turn whose text was asked for ended ``failed`` or ``interrupted``: ``turn`` is the turn
    as it ended (a ``Turn``), ``error`` its error (``TurnError``, None when interrupted without one)."""

    def __init__(self, turn: Any) -> None:
        why = f": {turn.error.message}" if turn.error is not None and turn.error.message else ""
        verb = "was interrupted" if turn.status == "interrupted" else "failed"
        super().__init__(f"turn {turn.id} {verb}{why}")
        self.turn = turn
        self.error = turn.error
