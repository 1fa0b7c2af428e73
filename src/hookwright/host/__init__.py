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

from hookwright.config.trust import TrustPolicy
from hookwright.core.effects import PromptInjection
from hookwright.core.events import Event
from hookwright.core.tool_results import tool_result_of as tool_result_from_value
from hookwright.engine.kernel import HookEngine
from hookwright.engine.services import WorkspaceAccess, WorkspaceLease
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
from hookwright.host.open import HookInfo, ProjectHooks
from hookwright.host.prompts import PromptFlow
from hookwright.host.reports import Reporter
from hookwright.host.session import (
    DEFAULT_STOP_BLOCK_CAP,
    HookSession,
    SessionIdentity,
)
from hookwright.host.sync import SyncHookSession
from hookwright.host.toolmap import ToolAlias, ToolMap, unmatched_tool_hooks

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
    "FrameworkSession",
    "HookEngine",
    "HookInfo",
    "HookSession",
    "ModelRequest",
    "ModelRequestDecision",
    "ModelResponseDecision",
    "PermissionDecision",
    "ProjectHooks",
    "PromptFlow",
    "PromptInjection",
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
