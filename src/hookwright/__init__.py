"""hookwright: one lifecycle-hook engine for LLM agents."""

from typing import TYPE_CHECKING, Any

from hookwright.effects import Effects, ModelNote, Notice
from hookwright.engine import HookEngine, ScopedHooks, apply_to_input, plan_stages
from hookwright.events import ALIASES, CLAUDE_CODE_EVENTS, Event, HookInput, resolve_event
from hookwright.observers import RuntimeEvent
from hookwright.results import (
    Decision,
    HookResult,
    Status,
    Verdict,
    abort,
    add_context,
    allow,
    ask,
    block,
    defer,
    deny,
    respond,
    rewrite_input,
    rewrite_output,
    stop,
)
from hookwright.spec import HookSpec, PythonHandler, RunContext

if TYPE_CHECKING:
    from hookwright.host import (
        Ask,
        Defer,
        Deny,
        HookSession,
        Respond,
        Run,
        SessionIdentity,
        SyncHookSession,
        ToolAlias,
        ToolMap,
        ToolResult,
    )

__version__ = "0.1.0"

#: The host API (`hookwright.host`), imported on first use: it loads every dialect.
_HOST_NAMES = frozenset(
    {
        "HookSession",
        "SyncHookSession",
        "SessionIdentity",
        "ToolAlias",
        "ToolMap",
        "ToolResult",
        "Run",
        "Ask",
        "Deny",
        "Respond",
        "Defer",
    }
)


def __getattr__(name: str) -> Any:
    if name in _HOST_NAMES:
        from hookwright import host

        return getattr(host, name)
    raise AttributeError(f"module 'hookwright' has no attribute {name!r}")


__all__ = [  # noqa: RUF022 (host names last: they load lazily)
    "ALIASES",
    "CLAUDE_CODE_EVENTS",
    "Decision",
    "Effects",
    "Event",
    "HookEngine",
    "HookInput",
    "HookResult",
    "HookSpec",
    "ModelNote",
    "Notice",
    "PythonHandler",
    "RunContext",
    "RuntimeEvent",
    "ScopedHooks",
    "Status",
    "Verdict",
    "__version__",
    "abort",
    "add_context",
    "allow",
    "apply_to_input",
    "ask",
    "block",
    "defer",
    "deny",
    "plan_stages",
    "resolve_event",
    "respond",
    "rewrite_input",
    "rewrite_output",
    "stop",
    "Ask",
    "Defer",
    "Deny",
    "HookSession",
    "Respond",
    "Run",
    "SessionIdentity",
    "SyncHookSession",
    "ToolAlias",
    "ToolMap",
    "ToolResult",
]
