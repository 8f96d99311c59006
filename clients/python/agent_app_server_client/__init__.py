"""A Python (asyncio, standard library only) client of agent-app-server and the Codex
app-server protocol v2: spawn the server (or connect over WebSocket), start threads, run turns
as async iterators of notifications, answer approval requests.

    async with await AppServerClient.spawn() as client:
        started = await client.start_thread(cwd="/path/to/project")
        text = await client.collect_text(client.run_turn(started.thread.id, "Hello"))
"""

from .client import DEFAULT_CLIENT_INFO, AppServerClient, default_command, to_wire_params
from .errors import (
    AppServerError,
    ClientError,
    ConnectionClosedError,
    MissingDependencyError,
    ProtocolError,
    RequestTimeoutError,
    TurnFailedError,
)
from .events import EventSubscription, TurnEvents, collect_text
from .models import (
    AgentMessageItem,
    CommandApprovalRequest,
    CommandExecutionItem,
    FileChangeApprovalRequest,
    FileChangeItem,
    FileUpdateChange,
    ImageViewItem,
    InitializeResult,
    Notification,
    PlanItem,
    ReasoningItem,
    Thread,
    ThreadItem,
    ThreadStartResult,
    Turn,
    TurnError,
    UserMessageItem,
    parse_item,
)
from .transport import StdioTransport, Transport, WebSocketTransport

__version__ = "0.1.0"

__all__ = [
    "AppServerClient",
    "default_command",
    "to_wire_params",
    "DEFAULT_CLIENT_INFO",
    "AppServerError",
    "ClientError",
    "ConnectionClosedError",
    "MissingDependencyError",
    "ProtocolError",
    "RequestTimeoutError",
    "TurnFailedError",
    "EventSubscription",
    "TurnEvents",
    "collect_text",
    "AgentMessageItem",
    "CommandApprovalRequest",
    "CommandExecutionItem",
    "FileChangeApprovalRequest",
    "FileChangeItem",
    "FileUpdateChange",
    "ImageViewItem",
    "InitializeResult",
    "Notification",
    "PlanItem",
    "ReasoningItem",
    "Thread",
    "ThreadItem",
    "ThreadStartResult",
    "Turn",
    "TurnError",
    "UserMessageItem",
    "parse_item",
    "StdioTransport",
    "Transport",
    "WebSocketTransport",
]
