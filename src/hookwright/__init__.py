"""hookwright: one lifecycle-hook engine for LLM agents."""

from hookwright.core.lazy_names import lazy_getattr
from hookwright.wiring import install as _install_defaults

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.core.effect_parts import ModelNote, Notice
    from hookwright.core.effects import Effects
    from hookwright.core.events import ALIASES, CLAUDE_CODE_EVENTS, Event, HookInput, resolve_event
    from hookwright.core.results import (
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
    from hookwright.core.run_context import RunContext
    from hookwright.core.spec import HookSpec, PythonHandler
    from hookwright.engine.kernel import HookEngine, ScopedHooks, apply_to_input, plan_stages
    from hookwright.engine.observed import RuntimeEvent
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

# The composition root: what a bare `HookEngine()` gets (the engine names no concrete runner
# or monitor). Here, because the root runs before any module of hookwright is imported.
_install_defaults()

#: Where each public name lives. Names load on first use, so `hookwright --version` and the
#: CLI's light commands do not pay for the engine, the dialects or the host API at start-up.
_HOMES = {
    "Effects": ".core.effects",
    **dict.fromkeys(("ModelNote", "Notice"), ".core.effect_parts"),
    **dict.fromkeys(
        ("HookEngine", "ScopedHooks", "apply_to_input", "plan_stages"), ".engine.kernel"
    ),
    **dict.fromkeys(
        ("ALIASES", "CLAUDE_CODE_EVENTS", "Event", "HookInput", "resolve_event"), ".core.events"
    ),
    "RuntimeEvent": ".engine.observed",
    **dict.fromkeys(
        (
            "Decision",
            "HookResult",
            "Status",
            "Verdict",
            "abort",
            "add_context",
            "allow",
            "ask",
            "block",
            "defer",
            "deny",
            "respond",
            "rewrite_input",
            "rewrite_output",
            "stop",
        ),
        ".core.results",
    ),
    **dict.fromkeys(("HookSpec", "PythonHandler"), ".core.spec"),
    "RunContext": ".core.run_context",
    **dict.fromkeys(
        (
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
        ),
        ".host",
    ),
}


__getattr__ = lazy_getattr(globals(), _HOMES)


__all__ = [  # noqa: RUF022 (host names last, as they were)
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
