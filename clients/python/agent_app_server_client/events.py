"""Queues of server notifications: subscriptions, and the events of one turn."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, AsyncIterator, Callable, Dict, Optional, Protocol

from .errors import ClientError, RequestTimeoutError, TurnFailedError
from .models import Notification, Turn


class EventSource(Protocol):
    """What subscriptions and turns need from the client (AppServerClient), named by shape so
    this module and client.py do not import each other."""

    request_timeout: Optional[float]

    def subscribe(
        self, method: Any = None, *, predicate: Optional[Callable[[Notification], bool]] = None, timeout: Any = ...
    ) -> "EventSubscription": ...

    def _unsubscribe(self, subscription: "EventSubscription") -> None: ...

    async def request(self, method: str, params: Any = None, *, timeout: Any = ...) -> Any: ...

    async def interrupt_turn(self, thread_id: str, turn_id: str) -> None: ...

__all__ = ["EventSubscription", "TurnEvents", "collect_text"]

logger = logging.getLogger("agent_app_server_client")

_END = object()
#: "Use the default timeout" (``None`` means no timeout, so it cannot be the marker).
DEFAULT: Any = object()


class EventSubscription:
    """The notifications the server sends from the moment of subscribing (those ``predicate``
    accepts), queued until read. Read with ``await sub.next()`` or ``async for event in sub``;
    iteration ends when the connection ends. Close it (or use ``with``) when done."""

    def __init__(
        self,
        client: EventSource,
        predicate: Optional[Callable[[Notification], bool]],
        timeout: Optional[float],
    ) -> None:
        self._client = client
        self._predicate = predicate
        self.timeout = timeout
        self._queue: "asyncio.Queue[Any]" = asyncio.Queue()
        self._end_error: Optional[ClientError] = None
        self._closed = False

    def _offer(self, notification: Notification) -> None:
        try:
            wanted = self._predicate is None or self._predicate(notification)
        except Exception:  # a bad predicate must not stop the reader
            logger.exception("an event subscription's predicate raised on %s", notification.method)
            return
        if wanted:
            self._queue.put_nowait(notification)

    def _end(self, error: ClientError) -> None:
        if self._end_error is None:
            self._end_error = error
            self._queue.put_nowait(_END)

    async def next(self, timeout: Optional[float] = DEFAULT) -> Notification:
        """The next notification. Raises :class:`RequestTimeoutError` after ``timeout`` seconds
        (default: the subscription's), or the connection's error once it has ended."""
        if self._end_error is not None and self._queue.empty():
            raise self._end_error
        limit = self.timeout if timeout is DEFAULT else timeout
        try:
            item = await asyncio.wait_for(self._queue.get(), limit)
        except asyncio.TimeoutError:
            raise RequestTimeoutError(f"no notification arrived within {limit} s") from None
        if item is _END:
            assert self._end_error is not None
            raise self._end_error
        return item

    def __aiter__(self) -> "EventSubscription":
        return self

    async def __anext__(self) -> Notification:
        try:
            return await self.next()
        except ClientError as error:
            if error is self._end_error:
                raise StopAsyncIteration from None
            raise

    def close(self) -> None:
        """Stops queueing notifications."""
        if not self._closed:
            self._closed = True
            self._client._unsubscribe(self)

    def __enter__(self) -> "EventSubscription":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class TurnEvents:
    """The notifications of one turn, ending with ``turn/completed`` (an async iterator).

    The turn is started (``turn/start``) when iteration begins. ``turn_id`` is known once the
    server has answered; ``turn`` is the final :class:`Turn` after ``turn/completed``. Raises
    :class:`RequestTimeoutError` if the turn does not complete within ``timeout`` seconds, and the
    connection's error if it ends first.
    """

    def __init__(
        self,
        client: EventSource,
        thread_id: str,
        params: Dict[str, Any],
        timeout: Optional[float],
    ) -> None:
        self._client = client
        self.thread_id = thread_id
        self._params = params
        self._timeout = timeout
        self.turn_id: Optional[str] = None
        self.turn: Optional[Turn] = None
        self._generator = self._run()

    def _belongs(self, event: Notification) -> bool:
        if event.thread_id != self.thread_id:
            return False
        turn_id = event.turn_id
        return turn_id is None or self.turn_id is None or turn_id == self.turn_id

    async def _run(self) -> AsyncIterator[Notification]:
        loop = asyncio.get_running_loop()
        deadline = None if self._timeout is None else loop.time() + self._timeout

        def remaining() -> Optional[float]:
            return None if deadline is None else max(0.0, deadline - loop.time())

        # Subscribe before sending turn/start: the turn's first notifications may come right
        # after (or, from another server, before) the answer.
        subscription = self._client.subscribe(predicate=lambda event: event.thread_id == self.thread_id)
        try:
            limit = remaining()
            request_timeout = self._client.request_timeout
            if limit is not None and (request_timeout is None or limit < request_timeout):
                request_timeout = limit
            result = await self._client.request("turn/start", self._params, timeout=request_timeout)
            self.turn_id = Turn.from_wire(result.get("turn") or {}).id if isinstance(result, dict) else None
            while True:
                try:
                    event = await subscription.next(timeout=remaining())
                except RequestTimeoutError:
                    raise RequestTimeoutError(
                        f"turn {self.turn_id} of thread {self.thread_id} did not complete within {self._timeout} s"
                    ) from None
                if not self._belongs(event):
                    continue
                if event.method == "turn/completed":
                    self.turn = event.turn
                yield event
                if event.method == "turn/completed":
                    return
        finally:
            subscription.close()

    def __aiter__(self) -> "TurnEvents":
        return self

    def __anext__(self) -> Any:
        return self._generator.__anext__()

    async def aclose(self) -> None:
        """Stops listening (the turn goes on in the server; see :meth:`interrupt`)."""
        await self._generator.aclose()

    async def __aenter__(self) -> "TurnEvents":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    async def interrupt(self) -> None:
        """Sends ``turn/interrupt`` for this turn (once it has started); keep iterating to see it end."""
        if self.turn_id is None:
            raise RuntimeError("the turn has not started yet (iterate first)")
        await self._client.interrupt_turn(self.thread_id, self.turn_id)

    async def text(self) -> str:
        """Runs the turn to its end and returns its agent text (see :func:`collect_text`)."""
        return await collect_text(self)


async def collect_text(events: "AsyncIterator[Notification] | TurnEvents | Any") -> str:
    """The agent's text of a turn's events: every completed ``agentMessage`` item, in order,
    joined by blank lines (as the TypeScript client's ``collectText``). A turn that ends ``failed``
    or ``interrupted`` raises ``TurnFailedError`` (``.turn``, ``.error``): its partial text is no answer."""
    texts = []
    async for event in events:
        if event.method == "item/completed" and isinstance(event.params.get("item"), dict):
            item = event.params["item"]
            if item.get("type") == "agentMessage":
                texts.append(str(item.get("text", "")))
        turn = event.params.get("turn") if event.method == "turn/completed" else None
        if isinstance(turn, dict) and turn.get("status") not in (None, "completed"):
            raise TurnFailedError(Turn.from_wire(turn))
    return "\n\n".join(texts)
