"""The host contract: what any agent loop calls at each lifecycle checkpoint, and the typed
decision it applies (docs/embedding.md shows a whole loop).

    session = HookSession(engine, SessionIdentity(cwd=...))
    decision = await session.before_tool("Bash", {"command": "ls"}, "call_1")
    match decision.action:
        case Run(tool_name, tool_input): ...      # run it with these arguments
        case Deny(message): ...                   # the model sees `message` as the result
        case Respond(result): ...                 # the tool's answer, without running it
        case Ask(reason=reason): ...              # ask the user
        case Defer(): ...
"""

from hookwright.core.lazy_names import lazy_getattr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.config.policy import FailurePolicy
    from hookwright.config.trust import TrustPolicy
    from hookwright.core.audit_detail import PermissionSource, PromptChannel
    from hookwright.core.effect_parts import PromptInjection
    from hookwright.core.events import Event
    from hookwright.core.tool_results import tool_result_of as tool_result_from_value
    from hookwright.engine.host_seams import WorkspaceAccess, WorkspaceLease
    from hookwright.engine.kernel import HookEngine
    from hookwright.host.decisions import (
        Ask,
        Checkpoint,
        CompactDecision,
        CompactedDecision,
        Defer,
        Deny,
        ElicitationDecision,
        EndTurn,
        ModelRequest,
        ModelRequestDecision,
        ModelResponseDecision,
        PermissionDecision,
        Respond,
        Run,
        SessionStartDecision,
        StopDecision,
        ToolAction,
        ToolDecision,
        ToolResult,
        ToolResultDecision,
    )
    from hookwright.host.framework import (
        Abilities,
        FrameworkSession,
        ToolStep,
        ask_payload,
        elapsed_ms,
        ended_text,
        reminder,
    )
    from hookwright.host.not_run import NotRun
    from hookwright.host.open import HookInfo, ProjectHooks
    from hookwright.host.prompts import PromptFlow, PromptPlacement
    from hookwright.host.reports import Reporter
    from hookwright.host.session import (
        DEFAULT_STOP_BLOCK_CAP,
        HookSession,
        SessionIdentity,
    )
    from hookwright.host.sync import SyncHookSession
    from hookwright.host.tool_alias import ToolAlias
    from hookwright.host.toolmap import ToolMap, unmatched_tool_hooks

#: Where each name of the contract lives. Names load on first use, so a module of this
#: package (`hookwright.host.open`, which the command line opens projects with) can be
#: imported without loading the engine and the session.
_HOMES = {
    "TrustPolicy": "hookwright.config.trust",
    "FailurePolicy": "hookwright.config.policy",
    "PromptInjection": "hookwright.core.effect_parts",
    "Event": "hookwright.core.events",
    "HookEngine": "hookwright.engine.kernel",
    **dict.fromkeys(("WorkspaceAccess", "WorkspaceLease"), "hookwright.engine.host_seams"),
    **dict.fromkeys(
        (
            "Ask",
            "Checkpoint",
            "CompactDecision",
            "CompactedDecision",
            "Defer",
            "Deny",
            "ElicitationDecision",
            "EndTurn",
            "ModelRequest",
            "ModelRequestDecision",
            "ModelResponseDecision",
            "PermissionDecision",
            "Respond",
            "Run",
            "SessionStartDecision",
            "StopDecision",
            "ToolAction",
            "ToolDecision",
            "ToolResult",
            "ToolResultDecision",
        ),
        "hookwright.host.decisions",
    ),
    **dict.fromkeys(
        (
            "Abilities",
            "FrameworkSession",
            "ToolStep",
            "ask_payload",
            "elapsed_ms",
            "ended_text",
            "reminder",
        ),
        "hookwright.host.framework",
    ),
    **dict.fromkeys(("HookInfo", "ProjectHooks"), "hookwright.host.open"),
    "NotRun": "hookwright.host.not_run",
    **dict.fromkeys(("PromptFlow", "PromptPlacement"), "hookwright.host.prompts"),
    "Reporter": "hookwright.host.reports",
    **dict.fromkeys(("PermissionSource", "PromptChannel"), "hookwright.core.audit_detail"),
    **dict.fromkeys(
        ("DEFAULT_STOP_BLOCK_CAP", "HookSession", "SessionIdentity"),
        "hookwright.host.session",
    ),
    "SyncHookSession": "hookwright.host.sync",
    **dict.fromkeys(("ToolMap", "unmatched_tool_hooks"), "hookwright.host.toolmap"),
    "ToolAlias": "hookwright.host.tool_alias",
    # kept for a function that lives elsewhere under another name
    "tool_result_from_value": "hookwright.core.tool_results:tool_result_of",
}

__getattr__ = lazy_getattr(globals(), _HOMES)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "DEFAULT_STOP_BLOCK_CAP",
    "Abilities",
    "Ask",
    "Checkpoint",
    "CompactDecision",
    "CompactedDecision",
    "Defer",
    "Deny",
    "ElicitationDecision",
    "EndTurn",
    "Event",
    "FailurePolicy",
    "FrameworkSession",
    "HookEngine",
    "HookInfo",
    "HookSession",
    "ModelRequest",
    "ModelRequestDecision",
    "ModelResponseDecision",
    "NotRun",
    "PermissionDecision",
    "PermissionSource",
    "ProjectHooks",
    "PromptChannel",
    "PromptFlow",
    "PromptInjection",
    "PromptPlacement",
    "Reporter",
    "Respond",
    "Run",
    "SessionIdentity",
    "SessionStartDecision",
    "StopDecision",
    "SyncHookSession",
    "ToolAction",
    "ToolAlias",
    "ToolDecision",
    "ToolMap",
    "ToolResult",
    "ToolResultDecision",
    "ToolStep",
    "TrustPolicy",
    "WorkspaceAccess",
    "WorkspaceLease",
    "ask_payload",
    "elapsed_ms",
    "ended_text",
    "reminder",
    "tool_result_from_value",
    "unmatched_tool_hooks",
]
