"""Typed views of the core protocol messages.

Each class is built from the wire dict with ``from_wire``; fields are snake_case, and the whole
wire dict stays in ``raw`` so nothing the server sent (newer or unknown fields) is lost.
Unknown item types parse as plain :class:`ThreadItem`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Type, Union

__all__ = [
    "InitializeResult",
    "Thread",
    "ThreadStartResult",
    "Turn",
    "TurnError",
    "ThreadItem",
    "UserMessageItem",
    "AgentMessageItem",
    "ReasoningItem",
    "PlanItem",
    "CommandExecutionItem",
    "FileUpdateChange",
    "FileChangeItem",
    "ImageViewItem",
    "parse_item",
    "CommandApprovalRequest",
    "FileChangeApprovalRequest",
    "Notification",
    "CommandDecision",
    "FileChangeDecision",
]

Json = Dict[str, Any]

#: ``accept`` / ``acceptForSession`` / ``decline`` / ``cancel``, or an object decision such as
#: ``{"acceptWithExecpolicyAmendment": {...}}``.
CommandDecision = Union[str, Dict[str, Any]]
#: ``accept`` / ``acceptForSession`` / ``decline`` / ``cancel``.
FileChangeDecision = str


def _dict(value: Any) -> Json:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> List[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _int(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass
class InitializeResult:
    """The answer to ``initialize``."""

    user_agent: str
    codex_home: Optional[str]
    platform_family: Optional[str]
    platform_os: Optional[str]
    raw: Json = field(repr=False)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> "InitializeResult":
        d = dict(data)
        return cls(
            user_agent=_str(d.get("userAgent")) or "",
            codex_home=_str(d.get("codexHome")),
            platform_family=_str(d.get("platformFamily")),
            platform_os=_str(d.get("platformOs")),
            raw=d,
        )


@dataclass
class TurnError:
    """Why a turn failed."""

    message: str
    codex_error_info: Any
    additional_details: Optional[str]
    raw: Json = field(repr=False)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> "TurnError":
        d = dict(data)
        return cls(
            message=_str(d.get("message")) or "",
            codex_error_info=d.get("codexErrorInfo"),
            additional_details=_str(d.get("additionalDetails")),
            raw=d,
        )


@dataclass
class ThreadItem:
    """An item of a turn. Subclasses add the fields of the known types; others keep only ``raw``."""

    id: str
    type: str
    raw: Json = field(repr=False)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> "ThreadItem":
        d = dict(data)
        return cls(id=_str(d.get("id")) or "", type=_str(d.get("type")) or "", raw=d, **cls._fields(d))

    @classmethod
    def _fields(cls, d: Json) -> Json:
        return {}


@dataclass
class UserMessageItem(ThreadItem):
    content: List[Json] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The text parts of the message, joined."""
        return "".join(part.get("text", "") for part in self.content if part.get("type") == "text")

    @classmethod
    def _fields(cls, d: Json) -> Json:
        return {"content": [_dict(part) for part in _list(d.get("content"))]}


@dataclass
class AgentMessageItem(ThreadItem):
    text: str = ""
    phase: Optional[str] = None

    @classmethod
    def _fields(cls, d: Json) -> Json:
        return {"text": _str(d.get("text")) or "", "phase": _str(d.get("phase"))}


@dataclass
class ReasoningItem(ThreadItem):
    summary: List[str] = field(default_factory=list)
    content: List[str] = field(default_factory=list)

    @classmethod
    def _fields(cls, d: Json) -> Json:
        return {
            "summary": [s for s in _list(d.get("summary")) if isinstance(s, str)],
            "content": [s for s in _list(d.get("content")) if isinstance(s, str)],
        }


@dataclass
class PlanItem(ThreadItem):
    text: str = ""

    @classmethod
    def _fields(cls, d: Json) -> Json:
        return {"text": _str(d.get("text")) or ""}


@dataclass
class CommandExecutionItem(ThreadItem):
    command: str = ""
    cwd: Optional[str] = None
    #: ``inProgress`` / ``completed`` / ``failed`` / ``declined``.
    status: str = ""
    aggregated_output: Optional[str] = None
    exit_code: Optional[int] = None
    duration_ms: Optional[int] = None
    process_id: Optional[str] = None
    command_actions: List[Json] = field(default_factory=list)

    @classmethod
    def _fields(cls, d: Json) -> Json:
        return {
            "command": _str(d.get("command")) or "",
            "cwd": _str(d.get("cwd")),
            "status": _str(d.get("status")) or "",
            "aggregated_output": _str(d.get("aggregatedOutput")),
            "exit_code": _int(d.get("exitCode")),
            "duration_ms": _int(d.get("durationMs")),
            "process_id": _str(d.get("processId")),
            "command_actions": [_dict(a) for a in _list(d.get("commandActions"))],
        }


@dataclass
class FileUpdateChange:
    """One file of a ``fileChange`` item."""

    path: str
    #: ``add`` / ``delete`` / ``update``.
    kind: str
    move_path: Optional[str]
    diff: str
    raw: Json = field(repr=False)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> "FileUpdateChange":
        d = dict(data)
        kind = _dict(d.get("kind"))
        return cls(
            path=_str(d.get("path")) or "",
            kind=_str(kind.get("type")) or "",
            move_path=_str(kind.get("move_path")),
            diff=_str(d.get("diff")) or "",
            raw=d,
        )


@dataclass
class FileChangeItem(ThreadItem):
    changes: List[FileUpdateChange] = field(default_factory=list)
    #: ``inProgress`` / ``completed`` / ``failed`` / ``declined``.
    status: str = ""

    @classmethod
    def _fields(cls, d: Json) -> Json:
        return {
            "changes": [FileUpdateChange.from_wire(_dict(c)) for c in _list(d.get("changes"))],
            "status": _str(d.get("status")) or "",
        }


@dataclass
class ImageViewItem(ThreadItem):
    path: str = ""

    @classmethod
    def _fields(cls, d: Json) -> Json:
        return {"path": _str(d.get("path")) or ""}


_ITEM_TYPES: Dict[str, Type[ThreadItem]] = {
    "userMessage": UserMessageItem,
    "agentMessage": AgentMessageItem,
    "reasoning": ReasoningItem,
    "plan": PlanItem,
    "commandExecution": CommandExecutionItem,
    "fileChange": FileChangeItem,
    "imageView": ImageViewItem,
}


def parse_item(data: Mapping[str, Any]) -> ThreadItem:
    """The typed item for a wire item (a plain :class:`ThreadItem` for types not modelled here)."""
    return _ITEM_TYPES.get(str(data.get("type")), ThreadItem).from_wire(data)


@dataclass
class Turn:
    id: str
    #: ``inProgress`` / ``completed`` / ``interrupted`` / ``failed``.
    status: str
    items: List[ThreadItem]
    error: Optional[TurnError]
    started_at: Optional[int]
    completed_at: Optional[int]
    duration_ms: Optional[int]
    raw: Json = field(repr=False)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> "Turn":
        d = dict(data)
        error = d.get("error")
        return cls(
            id=_str(d.get("id")) or "",
            status=_str(d.get("status")) or "",
            items=[parse_item(_dict(i)) for i in _list(d.get("items"))],
            error=TurnError.from_wire(error) if isinstance(error, dict) else None,
            started_at=_int(d.get("startedAt")),
            completed_at=_int(d.get("completedAt")),
            duration_ms=_int(d.get("durationMs")),
            raw=d,
        )


@dataclass
class Thread:
    id: str
    preview: str
    cwd: Optional[str]
    model: Optional[str]
    model_provider: Optional[str]
    #: ``idle`` / ``active`` / ``systemError`` / ``notLoaded`` (``status_info`` has the whole object).
    status: str
    status_info: Json
    name: Optional[str]
    path: Optional[str]
    ephemeral: bool
    created_at: Optional[int]
    updated_at: Optional[int]
    turns: List[Turn]
    raw: Json = field(repr=False)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> "Thread":
        d = dict(data)
        status = d.get("status")
        status_info = _dict(status) if isinstance(status, dict) else {"type": status}
        return cls(
            id=_str(d.get("id")) or "",
            preview=_str(d.get("preview")) or "",
            cwd=_str(d.get("cwd")),
            model=_str(d.get("model")),
            model_provider=_str(d.get("modelProvider")),
            status=_str(status_info.get("type")) or "",
            status_info=status_info,
            name=_str(d.get("name")),
            path=_str(d.get("path")),
            ephemeral=bool(d.get("ephemeral", False)),
            created_at=_int(d.get("createdAt")),
            updated_at=_int(d.get("updatedAt")),
            turns=[Turn.from_wire(_dict(t)) for t in _list(d.get("turns"))],
            raw=d,
        )


@dataclass
class ThreadStartResult:
    """The answer to ``thread/start`` (also the shape of ``thread/resume`` and ``thread/fork``)."""

    thread: Thread
    model: Optional[str]
    model_provider: Optional[str]
    cwd: Optional[str]
    approval_policy: Any
    sandbox: Any
    raw: Json = field(repr=False)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> "ThreadStartResult":
        d = dict(data)
        return cls(
            thread=Thread.from_wire(_dict(d.get("thread"))),
            model=_str(d.get("model")),
            model_provider=_str(d.get("modelProvider")),
            cwd=_str(d.get("cwd")),
            approval_policy=d.get("approvalPolicy"),
            sandbox=d.get("sandbox"),
            raw=d,
        )


@dataclass
class CommandApprovalRequest:
    """``item/commandExecution/requestApproval``: may the agent run this command?"""

    thread_id: str
    turn_id: str
    item_id: str
    command: Optional[str]
    cwd: Optional[str]
    reason: Optional[str]
    available_decisions: Optional[List[Any]]
    raw: Json = field(repr=False)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> "CommandApprovalRequest":
        d = dict(data)
        decisions = d.get("availableDecisions")
        return cls(
            thread_id=_str(d.get("threadId")) or "",
            turn_id=_str(d.get("turnId")) or "",
            item_id=_str(d.get("itemId")) or "",
            command=_str(d.get("command")),
            cwd=_str(d.get("cwd")),
            reason=_str(d.get("reason")),
            available_decisions=decisions if isinstance(decisions, list) else None,
            raw=d,
        )


@dataclass
class FileChangeApprovalRequest:
    """``item/fileChange/requestApproval``: may the agent apply this change? (The item's
    ``item/started`` notification, before the request, lists the changes.)"""

    thread_id: str
    turn_id: str
    item_id: str
    reason: Optional[str]
    grant_root: Optional[str]
    raw: Json = field(repr=False)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> "FileChangeApprovalRequest":
        d = dict(data)
        return cls(
            thread_id=_str(d.get("threadId")) or "",
            turn_id=_str(d.get("turnId")) or "",
            item_id=_str(d.get("itemId")) or "",
            reason=_str(d.get("reason")),
            grant_root=_str(d.get("grantRoot")),
            raw=d,
        )


@dataclass
class Notification:
    """A server notification: ``method`` and its ``params`` (the wire dict), with typed shortcuts."""

    method: str
    params: Json

    @property
    def thread_id(self) -> Optional[str]:
        return _str(self.params.get("threadId"))

    @property
    def turn_id(self) -> Optional[str]:
        """``params.turnId``, or ``params.turn.id`` for ``turn/*`` notifications."""
        return _str(self.params.get("turnId")) or _str(_dict(self.params.get("turn")).get("id"))

    @property
    def delta(self) -> Optional[str]:
        """The text of a ``…/delta`` notification."""
        return _str(self.params.get("delta"))

    @property
    def item(self) -> Optional[ThreadItem]:
        """The typed item of ``item/started`` / ``item/completed``."""
        item = self.params.get("item")
        return parse_item(item) if isinstance(item, dict) else None

    @property
    def turn(self) -> Optional[Turn]:
        """The typed turn of ``turn/started`` / ``turn/completed``."""
        turn = self.params.get("turn")
        return Turn.from_wire(turn) if isinstance(turn, dict) else None
