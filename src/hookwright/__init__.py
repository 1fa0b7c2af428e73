"""hookwright: one lifecycle-hook engine for LLM agents."""

from hookwright.effects import Effects, Notice
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

__version__ = "0.1.0"

__all__ = [
    "ALIASES",
    "CLAUDE_CODE_EVENTS",
    "Decision",
    "Effects",
    "Event",
    "HookEngine",
    "HookInput",
    "HookResult",
    "HookSpec",
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
]
